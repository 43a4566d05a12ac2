import { loadConfig } from '../src/config.js'
import { createGateway, type GatewayConfig } from '../src/gateway.js'
import type { DemoThread } from './demo-thread.js'

/** The in-process scenarios' gateways (called through `yoga.fetch`) and how they are asked. */

/** Production settings on the demo with one UPSTREAM_TOKEN; the cache off unless `overrides`
 *  turn it on: the in-process scenarios measure the gateway's work and calls. */
export function gatewayWith(demo: DemoThread, overrides: Partial<GatewayConfig>) {
  return createGateway({
    ...loadConfig({ NODE_ENV: 'production' }),
    upstreamUrl: demo.url,
    upstreamToken: 'demo-token',
    cacheTtlSeconds: 0,
    ...overrides,
  })
}
export type Gateway = ReturnType<typeof gatewayWith>
/** What yoga.fetch passes on to the context as the server's (node:http's `req` among it). */
type ServerContext = Parameters<Gateway['yoga']['fetch']>[2]

interface Cost {
  estimated: number
  limit: number
  upstreamCalls: number
  cacheHits: number
}
export interface Answer {
  data?: unknown
  errors?: unknown[]
  extensions?: { cost?: Cost; cache?: { stale: boolean; staleReads: number } }
}

/**
 * One operation through the gateway, as `caller` (its bearer token) sends it from `address` (the
 * gateway tells unverified callers apart by it); errors included.
 */
export async function ask(
  gateway: Gateway,
  query: string,
  variables: object,
  caller = 'bench',
  address = BENCH_ADDRESS,
) {
  const response = await gateway.yoga.fetch(
    'http://bench/graphql',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${caller}` },
      body: JSON.stringify({ query, variables }),
    },
    // As node:http hands it to yoga: the socket's remote address.
    { req: { socket: { remoteAddress: address } } } as unknown as ServerContext,
  )
  return (await response.json()) as Answer
}

/** One operation that must not fail. */
/** The address operations come from unless told otherwise. */
export const BENCH_ADDRESS = '10.0.0.1'

export async function run(
  gateway: Gateway,
  query: string,
  variables: object,
  caller = 'bench',
  address = BENCH_ADDRESS,
) {
  const body = await ask(gateway, query, variables, caller, address)
  if (body.errors) throw new Error(`errors: ${JSON.stringify(body.errors).slice(0, 300)}`)
  return body
}

export const ms = (value: number, width = 8) => value.toFixed(0).padStart(width)

/** `times` runs of `once` one after the other: their durations (ms), ascending. */
export async function timed(times: number, once: (i: number) => Promise<unknown>) {
  const durations: number[] = []
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    await once(i)
    durations.push(performance.now() - started)
  }
  return durations.sort((a, b) => a - b)
}
