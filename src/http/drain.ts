import type { Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
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
 * The requests of a node:http server in flight, from their first bytes to the end of their
 * response. The server keeps listening while it drains: `quiet` resolves once nothing is in
 * flight and no request has come for `quietMs`, and `stop` then stops listening. A request whose
 * head is still arriving counts as in flight: watched only while draining (a socket's `data`
 * listener takes it off node's fast path).
 */
export function trackRequests(server: Server, quietMs: number) {
  const inFlight = new Set<ServerResponse>()
  const sockets = new Set<Socket>()
  const arriving = new Set<Socket>()
  let onQuiet: (() => void) | undefined
  let timer: NodeJS.Timeout | undefined
  const wait = () => {
    clearTimeout(timer)
    if (onQuiet && inFlight.size === 0 && arriving.size === 0) timer = setTimeout(onQuiet, quietMs)
  }
  const watch = (socket: Socket) =>
    socket.on('data', () => {
      if ([...inFlight].some((res) => res.socket === socket)) return
      arriving.add(socket)
      clearTimeout(timer)
    })
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    if (onQuiet) watch(socket)
    socket.once('close', () => {
      sockets.delete(socket)
      arriving.delete(socket)
      wait()
    })
  })
  server.on('request', (req, res: ServerResponse) => {
    arriving.delete(req.socket)
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
        for (const socket of sockets) watch(socket)
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
