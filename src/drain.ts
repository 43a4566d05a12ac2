import type { Plugin } from 'graphql-yoga'

/**
 * While the process drains (SIGTERM), every response asks its client to close the connection
 * (`Connection: close`): a keep-alive connection ends after its current response instead of
 * waiting for the keep-alive timeout, so the process exits as soon as its work is done.
 */
export function useDrain(draining: () => boolean): Plugin {
  return {
    onResponse({ response }) {
      if (draining()) response.headers.set('connection', 'close')
    },
  }
}
