import type { Plugin } from 'graphql-yoga'
import { requestIdOf } from '../observability/request-id.js'

/** Echoes the request's id (`X-Request-Id`) on its response, whatever path or outcome. */
export function useRequestId(): Plugin {
  return {
    onResponse({ request, response }) {
      response.headers.set('x-request-id', requestIdOf(request))
    },
  }
}
