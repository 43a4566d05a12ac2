import { meros } from 'meros/browser'
import {
  type GraphQLResponse,
  Network,
  Observable,
  type PayloadError,
  type RequestParameters,
  type Variables,
} from 'relay-runtime'
import {
  GatewayRequestError,
  gatewayError,
  networkError,
  type ResponseInfo,
  type ResponseLog,
  responseInfo,
  withRequestId,
} from './gateway-answers.js'

/** One result as the gateway sends it: a whole answer, or one part of an answer in parts. */
interface Part {
  data?: Record<string, unknown> | null
  errors?: readonly PayloadError[]
  extensions?: Record<string, unknown>
  hasNext?: boolean
  incremental?: Increment[]
}

/** A deferred fragment's data, or a streamed list's next items (`path` ends at the first's index). */
interface Increment {
  data?: Record<string, unknown> | null
  items?: unknown[]
  errors?: readonly PayloadError[]
  extensions?: Record<string, unknown>
  label: string
  path: (string | number)[]
}

/**
 * Relay's payloads for one part. The gateway sends the 2022 format (later parts carry
 * `incremental: [...]`); Relay reads each deferred fragment, and each streamed item, as a payload
 * of its own with `label` and `path` at the top level, and finds the field of an error by its
 * path from that payload's data.
 */
function relayPayloads({ incremental = [], hasNext, ...result }: Part) {
  const payload = (data: unknown, { errors, ...increment }: Increment, path = increment.path) => ({
    ...increment,
    data,
    path,
    errors: errors
      ?.filter((error) => path.every((key, i) => error.path?.[i] === key))
      .map((error) => ({ ...error, path: error.path?.slice(path.length) })),
  })
  const later = incremental.flatMap(({ items, ...increment }) => {
    if (!items) return [payload(increment.data, increment)]
    const start = Number(increment.path.at(-1))
    const list = increment.path.slice(0, -1)
    return items.map((item, i) => payload(item, increment, [...list, start + i]))
  })
  return 'data' in result || 'errors' in result ? [result, ...later] : later
}

/** The part with the answer's request id in each error's `extensions` (Relay keeps them). */
function tagged(part: Part, requestId: string | undefined): Part {
  return {
    ...part,
    ...(part.errors && { errors: withRequestId(part.errors, requestId) }),
    ...(part.incremental && {
      incremental: part.incremental.map((increment) =>
        increment.errors
          ? { ...increment, errors: withRequestId(increment.errors, requestId) }
          : increment,
      ),
    }),
  }
}

export interface NetworkOptions {
  /** The gateway's GraphQL endpoint, e.g. `https://gateway.example.com/graphql`. */
  url: string
  /** Sent with every request (a bearer token, `Accept-Language`); a function is asked each time. */
  headers?: Record<string, string> | (() => Record<string, string>)
  /** Where each answer's request id and stale flag go (useResponseInfo reads them). */
  log?: ResponseLog
}

/** The body of one request: a persisted operation (`persistConfig`) is sent by its id only. */
function bodyOf(request: RequestParameters, variables: Variables) {
  const operation = request.id != null ? { documentId: request.id } : { query: request.text }
  return JSON.stringify({ ...operation, operationName: request.name, variables })
}

/**
 * A Relay network layer for the gateway: the `fetchFunction` of Relay's network-layer guide,
 * returning an Observable, with meros reading a multipart/mixed answer part by part. An answer
 * without data (refused: HTTP 4xx with coded errors; or no GraphQL answer at all) errors the
 * Observable with a GatewayRequestError, which Relay throws to the error boundary.
 */
export function createNetwork({ url, headers = {}, log }: NetworkOptions) {
  return Network.create((request, variables) =>
    Observable.create<GraphQLResponse>((sink) => {
      const controller = new AbortController()
      const send = async () => {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            ...(typeof headers === 'function' ? headers() : headers),
            accept: 'multipart/mixed, application/graphql-response+json, application/json',
            'content-type': 'application/json',
          },
          body: bodyOf(request, variables),
          signal: controller.signal,
        }).catch((error: unknown) => {
          throw new GatewayRequestError([networkError(String(error))])
        })
        const requestId = response.headers.get('x-request-id') ?? undefined
        const parts = await meros<Part>(response)
        const results =
          parts instanceof Response
            ? [{ json: true, body: await wholeAnswer(parts, requestId) }]
            : parts
        let info: ResponseInfo | undefined
        for await (const part of results) {
          if (!part.json) throw new GatewayRequestError([networkError('A part that is not JSON.')])
          info = responseInfo(requestId, part.body.extensions, info)
          log?.set(request.name, info)
          for (const payload of relayPayloads(tagged(part.body, requestId))) {
            sink.next(payload as GraphQLResponse)
          }
        }
      }
      send().then(
        () => sink.complete(),
        (error: unknown) => sink.closed || sink.error(error as Error),
      )
      return () => controller.abort()
    }),
  )
}

/** An answer in one piece; one without data is refused (its coded errors) or not GraphQL. */
async function wholeAnswer(response: Response, requestId: string | undefined): Promise<Part> {
  const text = await response.text()
  let body: Part | undefined
  try {
    body = JSON.parse(text) as Part
  } catch {
    body = undefined
  }
  if (body?.data != null) return body
  const errors = body?.errors?.map((error) => gatewayError(error, requestId))
  throw new GatewayRequestError(
    errors?.length ? errors : [networkError(`HTTP ${response.status}`, response.status, requestId)],
    response.status,
  )
}
