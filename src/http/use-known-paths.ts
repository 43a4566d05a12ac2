import type { Plugin } from 'graphql-yoga'
import { errorResponse } from '../errors/graphql-errors.js'

/** 404 for any other path: yoga would run GraphQL at `/x/graphql`, unseen by exact-path checks. */
export function useKnownPaths(paths: readonly string[]): Plugin {
  const known = new Set(paths)
  const message = `Nothing is served at this path; the gateway serves ${paths.join(', ')}.`
  return {
    onRequest({ url, endResponse, fetchAPI }) {
      if (known.has(url.pathname)) return
      endResponse(errorResponse(fetchAPI.Response, 404, 'NOT_FOUND', message))
    },
  }
}
