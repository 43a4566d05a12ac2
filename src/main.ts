import { createServer } from 'node:http'
import { ConfigError, loadConfig } from './config.js'
import { DEMO_TOKEN, DemoUpstream } from './demo-upstream/server.js'
import { createLogger } from './logger.js'
import { startTelemetry, type Telemetry } from './telemetry.js'
import { createGateway } from './yoga.js'

/** Reads the settings, starts the demo upstream when no UPSTREAM_URL is set, and listens. */

let config: ReturnType<typeof loadConfig>
try {
  config = loadConfig(process.env)
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(error.message)
  process.exit(1)
}

const logger = createLogger(config.logLevel)
let telemetry: Telemetry
try {
  telemetry = startTelemetry(process.env, 'company-data-gateway', logger)
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(error.message)
  process.exit(1)
}
if (telemetry.exporting) logger.info('Traces exported over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT)')
if (config.production && config.gatewaySecretIsDefault) {
  logger.warn(
    'GATEWAY_SECRET is unset: Contact IDs are keyed with the public development secret; set the same secret on every replica',
  )
}
let demo: DemoUpstream | undefined
let upstreamUrl = config.upstreamUrl
let upstreamToken = config.upstreamToken
if (upstreamUrl === undefined) {
  demo = new DemoUpstream({ languageHeader: config.upstreamLanguageHeader })
  upstreamUrl = await demo.start()
  upstreamToken ??= DEMO_TOKEN
  logger.info(
    `No UPSTREAM_URL set: serving demo data from the embedded demo upstream at ${upstreamUrl}`,
  )
}

let gateway: ReturnType<typeof createGateway>
try {
  gateway = createGateway({ ...config, upstreamUrl, upstreamToken }, logger, telemetry)
} catch (error) {
  // A manifest that cannot be used (PERSISTED_DOCUMENTS) is a bad setting: one line, no stack.
  if (!(error instanceof ConfigError)) throw error
  console.error(error.message)
  process.exit(1)
}
const server = createServer(gateway.yoga)
server.on('error', (error) => {
  logger.error(`Cannot listen on ${config.host}:${config.port}: ${error.message}`)
  process.exit(1)
})
server.listen(config.port, config.host, () => {
  const served = config.graphiql ? 'GraphiQL and GraphQL' : 'GraphQL'
  logger.info(`Gateway ready: ${served} at http://${config.host}:${config.port}/graphql`)
})

/**
 * Drain (SIGTERM, SIGINT): /ready answers 503 at once, no new connection is taken, idle
 * keep-alive connections close now and busy ones after their current response; operations in
 * flight finish. Exits 0 as soon as every connection is gone, and at the latest after
 * SHUTDOWN_TIMEOUT_MS (what is still open then is cut, and the log says how many).
 */
async function shutdown(signal: string) {
  logger.info(`${signal} received: draining (at most ${config.shutdownTimeoutMs} ms)`)
  gateway.drain()
  const drained = new Promise<void>((resolve) => server.close(() => resolve()))
  server.closeIdleConnections()
  const timer = setTimeout(() => {
    server.getConnections((_, open) =>
      logger.warn({ connections: open }, 'SHUTDOWN_TIMEOUT_MS reached: closing what is still open'),
    )
    server.closeAllConnections()
  }, config.shutdownTimeoutMs)
  await drained
  clearTimeout(timer)
  await gateway.close()
  await demo?.stop()
  await telemetry.shutdown(2000)
  logger.info('drained')
  process.exit(0)
}
// A second signal while draining changes nothing: the drain already has its deadline.
let stopping = false
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    void shutdown(signal)
  })
}
