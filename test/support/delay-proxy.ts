import { once } from 'node:events'
import { createServer, type Socket, connect as tcpConnect } from 'node:net'

/**
 * A TCP proxy in front of a server (Redis) that holds every chunk `delayMs` in each direction,
 * so a round trip costs 2 × `delayMs`, and counts the round trips made through it: an exchange
 * starts whenever a client sends after it last heard from the server (commands written together,
 * a pipeline or a script, are one). Counted per connection: what one connection sends while
 * another waits (a subscriber's SUBSCRIBE) costs the waiting one no round trip. Closed with
 * `close()`.
 */
export interface DelayProxy {
  url: string
  /** Exchanges made so far, per connection in the order they were opened. */
  exchanges(): number[]
  /** Resolves once no exchange is under way on any connection (every request answered, nothing
   *  held): a count started then begins with the next request. */
  idle(): Promise<void>
  close(): Promise<void>
}

/** The most exchanges any one connection made between two readings of `exchanges()`. */
export function mostExchanges(before: number[], after: number[]): number {
  return Math.max(0, ...after.map((count, i) => count - (before[i] ?? 0)))
}

export async function startDelayProxy(targetPort: number, delayMs: number): Promise<DelayProxy> {
  const exchanges: number[] = []
  const sockets = new Set<Socket>()
  /** Per connection, whether it waits for the server (sent since it last heard from it). */
  const waiting: boolean[] = []
  let held = 0
  const server = createServer((client) => {
    const target = tcpConnect(targetPort, '127.0.0.1')
    sockets.add(client).add(target)
    const connection = exchanges.push(0) - 1
    let lastHeard: 'client' | 'server' = 'server'
    const forward = (from: Socket, to: Socket, side: 'client' | 'server') => {
      from.on('data', (chunk) => {
        if (side === 'client' && lastHeard === 'server')
          exchanges[connection] = (exchanges[connection] ?? 0) + 1
        lastHeard = side
        waiting[connection] = side === 'client'
        held++
        // Chunks keep their order: each is held the same time from when it arrived.
        setTimeout(() => {
          held--
          if (!to.destroyed) to.write(chunk)
        }, delayMs)
      })
      from.on('close', () => setTimeout(() => to.destroy(), delayMs))
      from.on('error', () => {})
    }
    forward(client, target, 'client')
    forward(target, client, 'server')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `redis://127.0.0.1:${port}`,
    exchanges: () => [...exchanges],
    idle: async () => {
      while (held > 0 || waiting.some(Boolean)) await new Promise((r) => setTimeout(r, delayMs))
    },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      server.close()
      await once(server, 'close')
    },
  }
}
