import type { Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Plugin } from 'graphql-yoga'

/** While draining (SIGTERM), every response asks its client to close: node closes after it. */
export function useDrain(draining: () => boolean): Plugin {
  return {
    onResponse({ response }) {
      if (draining()) response.headers.set('connection', 'close')
    },
  }
}

// A node:http server's requests in flight, from their first bytes to their response's end. Heads
// still arriving are watched only while draining (a `data` listener slows a socket down), and
// count until they pause HEAD_PAUSE_MS: a slow link is waited for, a stalled head is not.
const HEAD_PAUSE_MS = 2_000

export function trackRequests(server: Server, quietMs: number) {
  const inFlight = new Set<ServerResponse>()
  const sockets = new Set<Socket>()
  const arriving = new Map<Socket, NodeJS.Timeout>()
  let onQuiet: (() => void) | undefined
  let timer: NodeJS.Timeout | undefined
  const wait = () => {
    clearTimeout(timer)
    if (onQuiet && inFlight.size === 0 && arriving.size === 0) timer = setTimeout(onQuiet, quietMs)
  }
  const arrived = (socket: Socket) => {
    clearTimeout(arriving.get(socket))
    arriving.delete(socket)
  }
  const watch = (socket: Socket) =>
    socket.on('data', () => {
      if ([...inFlight].some((res) => res.socket === socket)) return
      arrived(socket)
      const paused = () => {
        arriving.delete(socket)
        wait()
      }
      arriving.set(socket, setTimeout(paused, HEAD_PAUSE_MS))
      clearTimeout(timer)
    })
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    if (onQuiet) watch(socket)
    socket.once('close', () => {
      sockets.delete(socket)
      arrived(socket)
      wait()
    })
  })
  server.on('request', (req, res: ServerResponse) => {
    arrived(req.socket)
    inFlight.add(res)
    clearTimeout(timer)
    res.once('close', () => {
      inFlight.delete(res)
      wait()
    })
  })
  return {
    get size() {
      return inFlight.size
    },
    quiet: () =>
      new Promise<void>((resolve) => {
        onQuiet = resolve
        for (const socket of sockets) watch(socket)
        wait()
      }),
    /** Stops listening; what is still in flight is answered 503, or cut if it was streaming. */
    stop() {
      server.close()
      for (const res of inFlight) {
        if (res.headersSent) res.destroy()
        else res.writeHead(503, { connection: 'close', 'retry-after': '1' }).end()
      }
    },
  }
}
