import type { TypedDocumentNode } from '@graphql-typed-document-node/core'
import { print } from 'graphql'
import { afterAll, beforeEach } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { DEMO_TOKEN, DemoUpstream } from '../../src/demo-upstream/server.js'
import { createGateway, type GatewayConfig } from '../../src/gateway.js'
import type { Logger } from '../../src/observability/logger.js'
import type { Telemetry } from '../../src/observability/tracing-sdk.js'
import { demoData } from './fixtures.js'

/**
 * The gateway wired to a demo upstream on loopback, as in production: every upstream read is
 * real HTTP. The gateway itself is called through `yoga.fetch` (no port needed).
 */
export interface Stack extends Client {
  demo: DemoUpstream
  /** Another gateway process on the same demo upstream (a replica), closed with the stack. */
  replica(config?: Partial<GatewayConfig>): Client
}

/** One gateway of a stack, and the ways the tests call it. */
export interface Client {
  gateway: ReturnType<typeof createGateway>
  /** Closes this gateway now, for a test that starts many (the stack closes the rest). */
  close(): Promise<void>
  /** Any HTTP request, headers as given (none added); the whole body is read. */
  request(options?: RequestOptions): Promise<Answer>
  /** Sends a typed operation; headers default to the demo token. */
  execute<R, V>(
    document: TypedDocumentNode<R, V>,
    variables?: V,
    headers?: Record<string, string>,
  ): Promise<GraphQLResponse<R>>
  /** Sends a query written inline (attacks, odd shapes codegen would refuse). */
  post(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: GraphQLResponse<Record<string, unknown>> }>
}

export interface RequestOptions {
  /** POST when there is a body, GET otherwise. */
  method?: string
  /** The path and query string; `/graphql` unless given. */
  path?: string
  headers?: Record<string, string>
  /** Sent as JSON (with `content-type: application/json` unless given) unless it is a string. */
  body?: unknown
  signal?: AbortSignal
}

export interface Answer {
  status: number
  headers: Headers
  /** The body, read to its end (a stream's every part). */
  text: string
  /** The body parsed as JSON. */
  json<T = GraphQLResponse<Record<string, unknown>>>(): T
}

export interface GraphQLResponse<R> {
  status: number
  data?: R | null
  errors?: {
    message: string
    path?: (string | number)[]
    extensions?: Record<string, unknown> & { code?: string }
  }[]
  extensions?: Record<string, unknown>
}

export interface StackOptions {
  logger?: Logger
  /** Spans are made with its tracer (replicas too); without it, nothing is exported. */
  telemetry?: Telemetry
  /** The tokens the demo upstream accepts: the demo token unless given. */
  tokens?: string[]
  /** The demo upstream's clock (volatile contactIds follow it): the real one unless given. */
  now?: () => number
}

/** What an operation cost (its `extensions.cost`). */
export interface Cost {
  estimated: number
  limit: number
  upstreamCalls: number
  cacheHits: number
}

export const costOf = (body: GraphQLResponse<unknown>) => body.extensions?.cost as Cost

/** The demo token as a caller sends it. */
export const demoToken = { authorization: `Bearer ${DEMO_TOKEN}` }

/**
 * One demo upstream and gateway for a test file (or a describe block); calls and faults are
 * reset before each test, and everything is closed after all of them. The settings are the
 * defaults of contract/runtime.md (UPSTREAM_TIMEOUT_MS too: a loaded machine can hold a read for
 * seconds), except the cache of reads across operations: off unless `config` turns it on, so
 * that every test sees the upstream calls its operations make.
 */
export async function startStack(
  config: Partial<GatewayConfig> = {},
  { logger, telemetry, tokens, now }: StackOptions = {},
): Promise<Stack> {
  const demo = new DemoUpstream({ data: demoData, tokens, now })
  const url = await demo.start()
  const gateways = new Set<ReturnType<typeof createGateway>>()
  const client = (overrides: Partial<GatewayConfig>): Client => {
    const gateway = createGateway(
      {
        ...loadConfig({}),
        cacheTtlSeconds: 0,
        ...overrides,
        upstreamUrl: url,
      },
      logger,
      telemetry,
    )
    gateways.add(gateway)
    const request = async ({
      method,
      path = '/graphql',
      headers,
      body,
      signal,
    }: RequestOptions = {}) => {
      const json = body !== undefined && typeof body !== 'string'
      const response = await gateway.yoga.fetch(`http://gateway.test${path}`, {
        method: method ?? (body === undefined ? 'GET' : 'POST'),
        headers: json ? { 'content-type': 'application/json', ...headers } : headers,
        body: json ? JSON.stringify(body) : (body as string | undefined),
        signal,
      })
      const text = await response.text()
      return {
        status: response.status,
        headers: response.headers,
        text,
        json: () => JSON.parse(text),
      }
    }
    const post = async (query: string, variables?: unknown, headers = demoToken) => {
      const answer = await request({
        headers: { accept: 'application/json', ...headers },
        body: { query, variables },
      })
      return { status: answer.status, body: answer.json() }
    }
    return {
      gateway,
      close: () => {
        gateways.delete(gateway)
        return gateway.close()
      },
      request,
      async execute<R, V>(document: TypedDocumentNode<R, V>, variables?: V, headers = demoToken) {
        const { status, body } = await post(print(document), variables, headers)
        return { ...(body as GraphQLResponse<R>), status }
      },
      post,
    }
  }
  beforeEach(() => demo.reset())
  afterAll(async () => {
    await Promise.all([...gateways].map((gateway) => gateway.close()))
    await demo.stop()
  })
  return {
    demo,
    ...client(config),
    replica: (overrides = {}) => client({ ...config, ...overrides }),
  }
}
