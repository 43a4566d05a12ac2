import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases'
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth'
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives'
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens'
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql'
import { createGraphQLError, type Plugin, shouldRenderGraphiQL } from 'graphql-yoga'

/**
 * What the gateway refuses before any upstream call, each with a code: a response format it
 * cannot serve (406), operations of a kind the schema has not (it is read-only), and operations
 * over a shape limit. The upstream budget is src/operation-budget.ts.
 */

/** Fixed limits on the shape of an operation (see README, Limits). */
const MAX_TOKENS = 2000
const MAX_DIRECTIVES = 20

/** Media types yoga can answer a GraphQL request in (its result processors). */
const SERVED_MEDIA_TYPES = [
  'application/graphql-response+json',
  'application/json',
  'multipart/mixed',
  'text/event-stream',
]

/** Whether an Accept header (absent: anything) admits one of the served types. */
export function acceptsServedType(accept: string | null): boolean {
  for (const part of (accept ?? '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [range = '', ...params] = part.split(';')
    const charset = params.find((p) => p.startsWith('charset='))
    if (charset !== undefined && charset !== 'charset=utf-8') continue
    // q=0 means "not acceptable" (RFC 9110 §12.4.2).
    if (params.some((p) => /^q=0(\.0{0,3})?$/.test(p))) continue
    const [type, subtype] = range.split('/')
    if (
      SERVED_MEDIA_TYPES.some((served) => {
        const [servedType, servedSubtype] = served.split('/')
        return (
          (type === '*' || type === servedType) && (subtype === '*' || subtype === servedSubtype)
        )
      })
    ) {
      return true
    }
  }
  return false
}

/**
 * 406 for an Accept the gateway cannot serve, before the operation runs: yoga itself would only
 * find out after execution, when the upstream has been paid for.
 */
export function useAcceptCheck(graphqlEndpoint: string, graphiql: boolean): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      // A browser's page request passes only when there is a page to serve it.
      if (url.pathname !== graphqlEndpoint || (graphiql && shouldRenderGraphiQL(request))) return
      if (acceptsServedType(request.headers.get('accept'))) return
      endResponse(
        new fetchAPI.Response(
          JSON.stringify({
            errors: [
              {
                message: `Cannot answer in any type this Accept header allows; use one of ${SERVED_MEDIA_TYPES.join(', ')}.`,
                extensions: { code: 'NOT_ACCEPTABLE' },
              },
            ],
          }),
          {
            status: 406,
            headers: {
              'content-type': 'application/json; charset=utf-8',
              accept: SERVED_MEDIA_TYPES.join(', '),
            },
          },
        ),
      )
    },
  }
}

/** The schema has only queries: a mutation or subscription is invalid, not an internal error. */
const readOnly: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (!context.getSchema().getRootType(node.operation)) {
      context.reportError(
        new GraphQLError(`This gateway is read-only: it has no ${node.operation}s, only queries.`, {
          nodes: node,
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        }),
      )
    }
  },
})

/**
 * graphql-armor throws its rejections out of validation, where they lose any code; reported as
 * validation errors instead, they carry GRAPHQL_VALIDATION_FAILED like every other one.
 */
const reportAsValidationError = {
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) =>
      context?.reportError(
        new GraphQLError(error.message.replace(/^Syntax Error: /, ''), {
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        }),
      ),
  ],
}

/** Read-only operations within the shape limits (depth, aliases, directives, tokens). */
export function operationShapeLimits(limits: { maxDepth: number; maxAliases: number }): Plugin[] {
  return [
    {
      onValidate({ addValidationRule }) {
        addValidationRule(readOnly)
      },
    },
    maxTokensPlugin({ n: MAX_TOKENS }),
    maxDepthPlugin({ n: limits.maxDepth, flattenFragments: true, ...reportAsValidationError }),
    maxAliasesPlugin({ n: limits.maxAliases, allowList: [], ...reportAsValidationError }),
    maxDirectivesPlugin({ n: MAX_DIRECTIVES, ...reportAsValidationError }),
  ]
}

/**
 * Only the gateway's own paths answer: yoga would also run GraphQL at `/x/graphql`,
 * `/graphql/` or `//graphql`, where checks keyed to the exact endpoint (406, the operation log)
 * would not see it. Anything else is a 404 before the pipeline.
 */
export function useKnownPaths(paths: readonly string[]): Plugin {
  const known = new Set(paths)
  return {
    onRequest({ url, endResponse, fetchAPI }) {
      if (known.has(url.pathname)) return
      endResponse(
        new fetchAPI.Response(
          JSON.stringify({
            errors: [
              {
                message: `Nothing is served at ${url.pathname}.`,
                extensions: { code: 'NOT_FOUND' },
              },
            ],
          }),
          { status: 404, headers: { 'content-type': 'application/json' } },
        ),
      )
    },
  }
}

const bodyTooLarge = () =>
  createGraphQLError('Request body too large', {
    extensions: { http: { status: 413 }, code: 'REQUEST_ENTITY_TOO_LARGE' },
  })

/**
 * MAX_BODY_BYTES, as yoga's `maxRequestBodySize` enforces it (413 REQUEST_ENTITY_TOO_LARGE, 400
 * for a Content-Length that is not one number) at less cost: yoga pipes every body through a
 * counting TransformStream and a new Request, a measurable part of a small request's CPU. With
 * a Content-Length the header is the check, as node's HTTP parser reads exactly that many bytes
 * as the body; only a body without one (chunked) is counted as it arrives.
 */
export function useBodyLimit(maxBytes: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const length = request.headers.get('content-length')
      if (length !== null) {
        if (!/^\d+$/.test(length)) {
          throw createGraphQLError('Content-Length header is invalid.', {
            extensions: { http: { status: 400 }, code: 'BAD_REQUEST' },
          })
        }
        if (Number(length) > maxBytes) throw bodyTooLarge()
        return
      }
      if (!requestParser || !request.body) return
      setRequestParser((original) => {
        const body = original.body
        if (!body) return requestParser(original)
        // A native stream takes the native TransformStream, a ponyfill one the ponyfill's (yoga
        // does the same: graphql-yoga#4583).
        const Transform =
          body instanceof ReadableStream ? globalThis.TransformStream : fetchAPI.TransformStream
        let read = 0
        const counted = body.pipeThrough(
          new Transform<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              read += chunk.byteLength
              if (read > maxBytes) controller.error(bodyTooLarge())
              else controller.enqueue(chunk)
            },
          }),
        )
        return requestParser(
          new fetchAPI.Request(original.url, {
            method: original.method,
            headers: original.headers,
            signal: original.signal,
            body: counted,
            duplex: 'half',
          } as RequestInit),
        )
      })
    },
  }
}
