import { type Plugin, shouldRenderGraphiQL } from 'graphql-yoga'
import { errorResponse } from '../errors/error-response.js'

/** Media types yoga can answer an operation in part by part (@defer, @stream). */
export const INCREMENTAL_MEDIA_TYPES = ['multipart/mixed', 'text/event-stream']

/** Media types yoga can answer a GraphQL request in (its result processors). */
const SERVED_MEDIA_TYPES = [
  'application/graphql-response+json',
  'application/json',
  ...INCREMENTAL_MEDIA_TYPES,
]

/** Whether an Accept header (absent: anything) admits one of `types`. */
export function acceptsServedType(
  accept: string | null,
  types: readonly string[] = SERVED_MEDIA_TYPES,
): boolean {
  for (const part of (accept ?? '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [range = '', ...params] = part.split(';')
    const charset = params.find((p) => p.startsWith('charset='))
    if (charset !== undefined && charset !== 'charset=utf-8') continue
    // q=0 means "not acceptable" (RFC 9110 §12.4.2).
    if (params.some((p) => /^q=0(\.0{0,3})?$/.test(p))) continue
    const [type, subtype] = range.split('/')
    if (
      types.some((served) => {
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
        errorResponse(
          fetchAPI.Response,
          406,
          'NOT_ACCEPTABLE',
          `Cannot answer in any type this Accept header allows; use one of ${SERVED_MEDIA_TYPES.join(', ')}.`,
          { accept: SERVED_MEDIA_TYPES.join(', ') },
        ),
      )
    },
  }
}
