import type { Plugin } from 'graphql-yoga'
import { httpError } from '../errors/graphql-errors.js'

/**
 * A GET carries `variables` and `extensions` as JSON in its query string. One that is not JSON is
 * the caller's error, 400 BAD_REQUEST, before anything runs: yoga's parser lets JSON.parse's bare
 * SyntaxError through, which was a 500 and an error-level stack.
 */
export function useQueryStringJson(): Plugin {
  return {
    onRequestParse({ request }) {
      if (request.method !== 'GET') return
      const params = new URL(request.url).searchParams
      for (const name of ['variables', 'extensions']) {
        const value = params.get(name)
        if (!value) continue
        try {
          JSON.parse(value)
        } catch {
          throw httpError('BAD_REQUEST', 400, `The ${name} parameter is not JSON.`)
        }
      }
    },
  }
}
