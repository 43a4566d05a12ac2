import type { Plugin } from 'graphql-yoga'
import { errorResponse } from '../errors/error-response.js'

/**
 * Only the gateway's own paths answer: yoga would also run GraphQL at `/x/graphql`,
 * `/graphql/` or `//graphql`, where checks keyed to the exact endpoint (406, the operation log)
 * would not see it. Anything else is a 404 before the pipeline.
 */
export function useKnownPaths(paths: readonly string[]): Plugin {
  const known = new Set(paths)
  // The path asked for is not repeated: no caller input is echoed.
  const message = `Nothing is served at this path; the gateway serves ${paths.join(', ')}.`
  return {
    onRequest({ url, endResponse, fetchAPI }) {
      if (known.has(url.pathname)) return
      endResponse(errorResponse(fetchAPI.Response, 404, 'NOT_FOUND', message))
    },
  }
}
