import type { Server, ServerResponse } from 'node:http'
import type { Plugin } from 'graphql-yoga'

/**
 * While the process drains (SIGTERM), every response asks its client to close the connection
 * (`Connection: close`, over the `keep-alive` yoga gives a stream): node then closes a
 * connection after its response, never before one, so no request on it is cut.
 */
export function useDrain(draining: () => boolean): Plugin {
  return {
    onResponse({ response }) {
      if (draining()) response.headers.set('connection', 'close')
    },
  }
}

/**
 * The requests of a node:http server in flight, from their headers to the end of their response.
 * The server keeps listening while it drains: `quiet` resolves once nothing is in flight and no
 * request has come for `quietMs`, and `stop` then stops listening.
 */
export function trackRequests(server: Server, quietMs: number) {
  const inFlight = new Set<ServerResponse>()
  let onQuiet: (() => void) | undefined
  let timer: NodeJS.Timeout | undefined
  const wait = () => {
    clearTimeout(timer)
    if (onQuiet && inFlight.size === 0) timer = setTimeout(onQuiet, quietMs)
  }
  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res)
    clearTimeout(timer)
    res.once('close', () => {
      inFlight.delete(res)
      wait()
    })
  })
  return {
    /** How many requests are in flight. */
    get size() {
      return inFlight.size
    },
    /** Resolves once nothing is in flight and no request has come for `quietMs`. */
    quiet: () =>
      new Promise<void>((resolve) => {
        onQuiet = resolve
        wait()
      }),
    /**
     * Stops listening and closes the idle connections; what is still in flight (the deadline
     * came) is answered 503 if nothing of its response was sent, or cut if it was streaming.
     */
    stop() {
      server.close()
      for (const res of inFlight) {
        if (res.headersSent) res.destroy()
        else res.writeHead(503, { connection: 'close', 'retry-after': '1' }).end()
      }
    },
  }
}
