import { once } from 'node:events'
import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll } from 'vitest'

/**
 * An HTTP server on a free loopback port, for a test file or describe block: a gateway's yoga
 * served over real sockets, or a stub. Closed in afterAll, its open connections with it.
 */
export async function serve(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}
