import type { Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
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

/**
 * The connections of a node:http server, for the drain. Once `drain()` is called, a connection
 * is closed as soon as it has no request in flight: at once when it has none (a connection that
 * never sent a request, or only part of one: no response was promised to it), otherwise when
 * its last response ends, even one whose headers went out before the drain with `Connection:
 * keep-alive` (a @defer stream). A request is in flight from its last byte received, or its
 * response's first byte sent, until its response ends.
 *
 * node:http alone does not do this: `server.close()` and `closeIdleConnections()` close only the
 * keep-alive connections idle at that moment, so a silent or half-sent connection, or one that
 * becomes idle during the drain, holds the process until its keep-alive, headers or request
 * timeout. The libraries that do it (http-terminator, stoppable) are not dependencies, and it is
 * a few lines over node's own events.
 */
export function trackConnections(server: Server) {
  const open = new Map<Socket, Set<ServerResponse>>()
  let draining = false
  const inFlight = (res: ServerResponse) => res.headersSent || res.req.complete
  const closeIfIdle = (socket: Socket) => {
    const responses = open.get(socket)
    if (!draining || !responses || [...responses].some(inFlight)) return
    // Ends once what was written to it is flushed (the end of a stream), then closes.
    socket.destroySoon()
  }
  server.on('connection', (socket: Socket) => {
    open.set(socket, new Set())
    socket.once('close', () => open.delete(socket))
  })
  server.on('request', (req, res: ServerResponse) => {
    const responses = open.get(req.socket)
    responses?.add(res)
    res.once('close', () => {
      responses?.delete(res)
      closeIfIdle(req.socket)
    })
  })
  return {
    /** How many connections are open. */
    get size() {
      return open.size
    },
    /** From now on a connection closes as soon as it has no request in flight. */
    drain() {
      draining = true
      for (const socket of open.keys()) closeIfIdle(socket)
    },
    /** Cuts every connection, requests in flight or not. */
    destroyAll() {
      for (const socket of open.keys()) socket.destroy()
    },
  }
}
