import { ApolloLink } from '@apollo/client'
import { ServerError } from '@apollo/client/errors'
import { catchError, map, of } from 'rxjs'
import { type ResponseInfo, type ResponseLog, responseInfo } from './gateway-answers.js'

/** The `X-Request-Id` of the answer HttpLink received (it keeps the Response in the context). */
function requestIdOf(operation: ApolloLink.Operation): string | undefined {
  const { response } = operation.getContext() as { response?: Response }
  return response?.headers.get('x-request-id') ?? undefined
}

/**
 * A refused operation's answer (HTTP 4xx, coded errors): HttpLink reads the body itself when it
 * is `application/graphql-response+json`, and throws a ServerError for `application/json` (the
 * answers of the request edge: 401, 403, 404, 406, 413). Either way the app gets the coded errors.
 */
function refusal(error: unknown): ApolloLink.Result | undefined {
  if (!ServerError.is(error)) return undefined
  try {
    const body = JSON.parse(error.bodyText) as { errors?: unknown }
    if (!Array.isArray(body.errors) || body.errors.length === 0) return undefined
    const requestId = error.response.headers.get('x-request-id') ?? undefined
    return { errors: body.errors, ...(requestId !== undefined && { extensions: { requestId } }) }
  } catch {
    return undefined
  }
}

/**
 * Put before HttpLink: each answer's request id goes in its `extensions` (so in a
 * CombinedGraphQLErrors' `extensions`) and, with its stale flag, in `log`; refusals become
 * GraphQL errors like any other.
 */
export function gatewayLink(log: ResponseLog): ApolloLink {
  return new ApolloLink((operation, forward) => {
    let info: ResponseInfo | undefined
    return forward(operation).pipe(
      catchError((error: unknown) => {
        const refused = refusal(error)
        if (!refused) throw error
        return of(refused)
      }),
      map((result) => {
        const requestId =
          requestIdOf(operation) ?? (result.extensions?.requestId as string | undefined)
        info = responseInfo(requestId, result.extensions, info)
        log.set(operation.operationName ?? '', info)
        if (requestId === undefined) return result
        return { ...result, extensions: { ...result.extensions, requestId } }
      }),
    )
  })
}

/** Headers computed for each request (a token that changes), on top of HttpLink's. */
export function headersLink(headers: () => Record<string, string>): ApolloLink {
  return new ApolloLink((operation, forward) => {
    operation.setContext(({ headers: before = {} }: { headers?: Record<string, string> }) => ({
      headers: { ...before, ...headers() },
    }))
    return forward(operation)
  })
}
