import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { freePort, spawnNode, waitForHttp, waitForOutput } from '../children.js'
import { LOG_LEVEL } from './sizes.js'

/**
 * The servers of the headline, each a process of its own on loopback HTTP: the demo upstream
 * (`node dist/demo-upstream/main.js`), the gateway (`node dist/main.js`, production settings)
 * and a bare graphql-yoga server with the same schema shape (bench/bare-yoga.ts).
 */

export async function startDemo(port: number, latencyMs: number) {
  const child = spawnNode(`demo upstream (${latencyMs} ms)`, ['dist/demo-upstream/main.js'], {
    PORT: String(port),
    DEMO_LATENCY_MS: String(latencyMs),
  })
  await waitForOutput(child, /Demo upstream ready at http/)
  return child
}

interface GatewayOptions {
  cache: boolean
  maxConnections?: number
  logLevel?: string
}
export async function startGateway(upstreamUrl: string, options: GatewayOptions) {
  const port = await freePort()
  const logLevel = options.logLevel ?? LOG_LEVEL
  const child = spawnNode(
    `gateway (cache ${options.cache ? 'on' : 'off'})`,
    ['dist/main.js'],
    {
      UPSTREAM_URL: upstreamUrl,
      UPSTREAM_TOKEN: DEMO_TOKEN,
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      LOG_LEVEL: logLevel,
      GATEWAY_SECRET: 'bench secret, not for production',
      ...(options.cache ? {} : { CACHE_TTL_SECONDS: '0' }),
      ...(options.maxConnections
        ? { UPSTREAM_MAX_CONNECTIONS: String(options.maxConnections) }
        : {}),
    },
    // At info the gateway logs a line per operation: to /dev/null, not through this process.
    { stdout: logLevel === 'warn' || logLevel === 'error' ? 'pipe' : 'ignore' },
  )
  const origin = `http://127.0.0.1:${port}`
  await waitForHttp(child, `${origin}/health`)
  return { child, origin }
}

export async function startBareYoga(upstreamUrl: string, keepAnswers = false, connections = 32) {
  const child = spawnNode('bare graphql-yoga', ['--import', 'tsx', 'bench/bare-yoga.ts'], {
    UPSTREAM_URL: upstreamUrl,
    UPSTREAM_MAX_CONNECTIONS: String(connections),
    UPSTREAM_TOKEN: DEMO_TOKEN,
    PORT: '0',
    NODE_ENV: 'production',
    BARE_CACHE: keepAnswers ? '1' : '0',
  })
  const [, url] = await waitForOutput(child, /bare-yoga listening at (http:\/\/[\d.:]+)\/graphql/)
  return { child, origin: url as string }
}
