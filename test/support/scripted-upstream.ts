import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { DemoUpstream } from '../../src/demo-upstream/server.js'
import { createGateway, type GatewayConfig } from '../../src/gateway.js'
import { demoData } from './fixtures.js'
import { demoToken } from './stack.js'

/**
 * A gateway on a scriptable upstream, for what the demo's data cannot show (namesakes, renumbering). Every request goes to `route` first; when it
 * returns undefined the request is passed to a demo upstream (its faults and holds apply).
 */
export type Route = (
  url: URL,
  req: IncomingMessage,
) =>
  | Promise<{ status?: number; body: unknown } | undefined>
  | { status?: number; body: unknown }
  | undefined

export async function scriptedStack(config: Partial<GatewayConfig> = {}) {
  const demo = new DemoUpstream({ data: demoData })
  const demoUrl = await demo.start()
  const calls: { path: string; query: Record<string, string>; at: number }[] = []
  let route: Route = () => undefined
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    calls.push({ path: url.pathname, query: Object.fromEntries(url.searchParams), at: Date.now() })
    try {
      const mine = await route(url, req)
      if (mine) {
        res.writeHead(mine.status ?? 200, { 'content-type': 'application/json' })
        res.end(typeof mine.body === 'string' ? mine.body : JSON.stringify(mine.body))
        return
      }
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && k !== 'host') headers[k] = v
      const answer = await fetch(`${demoUrl}${req.url}`, { headers })
      res.writeHead(answer.status, { 'content-type': 'application/json' })
      res.end(await answer.text())
    } catch (error) {
      if (!res.headersSent) res.writeHead(500)
      res.end(String(error))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const gateway = createGateway({
    ...loadConfig({}),
    cacheTtlSeconds: 0,
    ...config,
    upstreamUrl: url,
  })
  afterAll(async () => {
    await gateway.close()
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
    await demo.stop()
  })
  const post = async (query: string, variables?: unknown, headers: Record<string, string> = {}) => {
    const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...demoToken,
        ...headers,
      },
      body: JSON.stringify({ query, variables }),
    })
    // biome-ignore lint/suspicious/noExplicitAny: test
    return { status: response.status, body: (await response.json()) as any }
  }
  return {
    demo,
    gateway,
    calls,
    post,
    setRoute(r: Route) {
      route = r
    },
    reset() {
      calls.length = 0
      route = () => undefined
      demo.reset()
    },
  }
}

/** A paged upstream answer of `items`, as the REST document has it. */
export function paged(url: URL, items: unknown[], identifier: unknown, defaultLimit = 4) {
  const limit = Number(url.searchParams.get('limit') ?? defaultLimit)
  const offset = Number(url.searchParams.get('offset') ?? 0)
  if (limit > 500) return { status: 400, body: { error: 'limit' } }
  return {
    body: {
      identifier,
      data: items.slice(offset, offset + limit),
      pagination: { limit, offset, total: items.length },
    },
  }
}
