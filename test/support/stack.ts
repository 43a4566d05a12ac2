import type { TypedDocumentNode } from '@graphql-typed-document-node/core'
import { print } from 'graphql'
import { afterAll, beforeEach } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { DEMO_TOKEN, DemoUpstream } from '../../src/demo-upstream/server.js'
import { createGateway, type GatewayConfig } from '../../src/gateway.js'
import type { Logger } from '../../src/observability/logger.js'
import type { Telemetry } from '../../src/observability/tracing-sdk.js'

/**
 * The gateway wired to a demo upstream on loopback, as in production: every upstream read is
 * real HTTP. The gateway itself is called through `yoga.fetch` (no port needed).
 */
export interface Stack {
  demo: DemoUpstream
  gateway: ReturnType<typeof createGateway>
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
  /** Another gateway process on the same demo upstream (a replica), closed with the stack. */
  replica(config?: Partial<GatewayConfig>): Pick<Stack, 'gateway' | 'execute' | 'post'>
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

/**
 * One demo upstream and gateway for a test file; calls and faults are reset before each test.
 * Spans are made with `telemetry`'s tracer (replicas too); without it, nothing is exported.
 * The cache of reads across operations is off unless `config` turns it on, so that every test
 * sees the upstream calls its operations make.
 */
export async function startStack(
  config: Partial<GatewayConfig> = {},
  logger?: Logger,
  telemetry?: Telemetry,
): Promise<Stack> {
  const demo = new DemoUpstream()
  const url = await demo.start()
  const gateways: ReturnType<typeof createGateway>[] = []
  const client = (overrides: Partial<GatewayConfig>) => {
    const gateway = createGateway(
      {
        ...loadConfig({}),
        upstreamTimeoutMs: 2000,
        cacheTtlSeconds: 0,
        ...overrides,
        upstreamUrl: url,
      },
      logger,
      telemetry,
    )
    gateways.push(gateway)
    const send = async (query: string, variables: unknown, headers: Record<string, string>) => {
      const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      })
      return { status: response.status, body: await response.json() }
    }
    const demoToken = { authorization: `Bearer ${DEMO_TOKEN}` }
    return {
      gateway,
      async execute<R, V>(
        document: TypedDocumentNode<R, V>,
        variables?: V,
        headers: Record<string, string> = demoToken,
      ): Promise<GraphQLResponse<R>> {
        const { status, body } = await send(print(document), variables, headers)
        return { status, ...body }
      },
      post: (query: string, variables?: Record<string, unknown>, headers = demoToken) =>
        send(query, variables, headers),
    }
  }
  beforeEach(() => demo.reset())
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()))
    await demo.stop()
  })
  return {
    demo,
    ...client(config),
    replica: (overrides = {}) => client({ ...config, ...overrides }),
  }
}
