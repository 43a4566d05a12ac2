import { z } from 'zod'
import { createLogger } from '../observability/logger.js'
import { DEMO_TOKEN, DemoUpstream } from './server.js'

/**
 * The demo upstream as a process of its own, for operators and docker-compose:
 * `npm run demo-upstream`, or `node dist/demo-upstream/main.js` after `npm run build`.
 * Settings from the environment (validated with zod, one line naming a bad variable); stops
 * cleanly on SIGTERM or SIGINT.
 */

/** An empty variable counts as unset, as shells and compose files often leave them. */
const unsetWhenEmpty = (v: unknown) => (v === '' ? undefined : v)

const settings = z.object({
  PORT: z.preprocess(unsetWhenEmpty, z.coerce.number().int().min(0).max(65_535).default(4010)),
  HOST: z.preprocess(unsetWhenEmpty, z.string().min(1).default('127.0.0.1')),
  /** Added before every answer, to model a remote service. */
  DEMO_LATENCY_MS: z.preprocess(unsetWhenEmpty, z.coerce.number().int().min(0).optional()),
  UPSTREAM_LANGUAGE_HEADER: z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name')
      .optional(),
  ),
})

const parsed = settings.safeParse(process.env)
if (!parsed.success) {
  const issue = parsed.error.issues[0]
  const name = String(issue?.path[0] ?? 'environment')
  console.error(`Invalid setting ${name}: ${issue?.message ?? 'invalid value'}`)
  process.exit(1)
}
const env = parsed.data

const logger = createLogger('info')
const demo = new DemoUpstream({
  port: env.PORT,
  host: env.HOST,
  ...(env.UPSTREAM_LANGUAGE_HEADER === undefined
    ? {}
    : { languageHeader: env.UPSTREAM_LANGUAGE_HEADER }),
})
if (env.DEMO_LATENCY_MS !== undefined) demo.latencyMs = env.DEMO_LATENCY_MS

let url: string
try {
  url = await demo.start()
} catch (error) {
  console.error(
    `Cannot listen on ${env.HOST}:${env.PORT}: ${error instanceof Error ? error.message : error}`,
  )
  process.exit(1)
}
// The token goes in the message: the logger redacts any field named `token`.
logger.info(
  { url, latencyMs: demo.latencyMs },
  `Demo upstream ready at ${url} (Authorization: Bearer ${DEMO_TOKEN})`,
)

async function shutdown(signal: string) {
  logger.info(`${signal} received: stopping the demo upstream`)
  await demo.stop()
  process.exit(0)
}
process.once('SIGTERM', () => void shutdown('SIGTERM'))
process.once('SIGINT', () => void shutdown('SIGINT'))
