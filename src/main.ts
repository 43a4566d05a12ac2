import { createServer } from 'node:http'
import { ConfigError, loadConfig, startWarnings } from './config.js'
import type { DemoUpstream } from './demo-upstream/server.js'
import { createGateway } from './gateway.js'
import { trackRequests } from './http/drain.js'
import { createLogger } from './observability/logger.js'
import { startTelemetry } from './observability/tracing-sdk.js'

// Reads the settings, starts the demo upstream when no UPSTREAM_URL is set, and listens.

/** What `read` returns; a wrong setting (ConfigError, e.g. an unusable PERSISTED_DOCUMENTS
 *  manifest) is printed on one line, no stack, and the process exits. */
function orExit<T>(read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    console.error(error.message)
    process.exit(1)
  }
}

const config = orExit(() => loadConfig(process.env))
const logger = createLogger(config.logLevel)
const telemetry = orExit(() => startTelemetry(process.env, 'company-data-gateway', logger))
if (telemetry.exporting) logger.info('Traces exported over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT)')
for (const warning of startWarnings(config)) logger.warn(warning)
let demo: DemoUpstream | undefined
let upstreamUrl = config.upstreamUrl
let upstreamToken = config.upstreamToken
if (upstreamUrl === undefined) {
  // Loaded only here: production, which sets UPSTREAM_URL, never loads the demo's code and data.
  const { DEMO_TOKEN, DemoUpstream } = await import('./demo-upstream/server.js')
  const { readDemoSettings, shown } = await import('./demo-upstream/settings.js')
  const { adminNote } = await import('./demo-upstream/admin.js')
  const read = readDemoSettings(process.env)
  if (!read.ok) {
    console.error(read.message)
    process.exit(1)
  }
  demo = new DemoUpstream({
    languageHeader: config.upstreamLanguageHeader,
    admin: read.settings.DEMO_ADMIN,
  })
  demo.configure(read.settings)
  upstreamUrl = await demo.start()
  upstreamToken ??= DEMO_TOKEN
  logger.info(
    { demoFaults: shown(demo.faultSettings) },
    `No UPSTREAM_URL set: serving demo data from the embedded demo upstream at ${upstreamUrl}${adminNote(demo.adminUrl)}`,
  )
}

const gateway = orExit(() =>
  createGateway({ ...config, upstreamUrl, upstreamToken }, logger, telemetry),
)
await gateway.warm()
const server = createServer(gateway.yoga)
// The drain's end: nothing in flight and no request for this long.
const requests = trackRequests(server, 500)
server.on('error', (error) => {
  logger.error(`Cannot listen on ${config.host}:${config.port}: ${error.message}`)
  process.exit(1)
})
server.listen(config.port, config.host, () => {
  const served = config.graphiql ? 'GraphiQL and GraphQL' : 'GraphQL'
  logger.info(`Gateway ready: ${served} at http://${config.host}:${config.port}/graphql`)
})

/**
 * Drain (SIGTERM, SIGINT): the server keeps answering every request it receives, so no connection
 * is reset, until nothing is in flight for 500 ms or SHUTDOWN_TIMEOUT_MS; then everything closes
 * within the same deadline (docs/operations.md).
 */
async function shutdown(signal: string) {
  const deadline = Date.now() + config.shutdownTimeoutMs
  logger.info(`${signal} received: draining (at most ${config.shutdownTimeoutMs} ms)`)
  gateway.drain()
  if (!(await settlesBefore(requests.quiet(), deadline))) {
    logger.warn(
      { inFlight: requests.size },
      'SHUTDOWN_TIMEOUT_MS reached: answering 503 to the requests still in flight',
    )
  }
  requests.stop()
  const unfinished = new Set(['upstream client', 'telemetry'])
  if (demo) unfinished.add('demo upstream')
  const closing = (name: string, close: () => Promise<unknown>) =>
    close()
      .catch((error: unknown) => logger.warn({ err: error }, `closing the ${name} failed`))
      .finally(() => unfinished.delete(name))
  const closed = Promise.all([
    // The demo answers the upstream client's requests: it stops after it.
    closing('upstream client', () => gateway.close()).then(
      () => demo && closing('demo upstream', () => demo.stop()),
    ),
    closing('telemetry', () =>
      telemetry.shutdown(Math.max(0, Math.min(2000, deadline - Date.now()))),
    ),
  ])
  if (!(await settlesBefore(closed, deadline))) {
    logger.warn(
      { unfinished: [...unfinished] },
      `SHUTDOWN_TIMEOUT_MS reached: exiting before the ${[...unfinished].join(', ')} closed`,
    )
  }
  logger.info('drained')
  process.exit(0)
}

/** Whether `work` settles before `deadline` (a Date.now() time). */
async function settlesBefore(work: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - Date.now()), false)
  })
  try {
    return await Promise.race([work.catch(() => {}).then(() => true), late])
  } finally {
    clearTimeout(timer)
  }
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
