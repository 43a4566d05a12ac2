import { z } from 'zod'
import { createLogger } from '../observability/logger.js'
import { adminNote } from './admin.js'
import { DEMO_TOKEN, DemoUpstream } from './server.js'
import { demoEnvironment, invalidSetting, shown } from './settings.js'

/**
 * The demo upstream as a process of its own, for operators and docker-compose:
 * `npm run demo-upstream`, or `node dist/demo-upstream/main.js` after `npm run build`.
 * Settings from the environment (validated with zod, one line naming a bad variable): its own
 * below, and the demo's (settings.ts); stops cleanly on SIGTERM or SIGINT.
 */

/** An empty variable counts as unset, as shells and compose files often leave them. */
const unsetWhenEmpty = (v: unknown) => (v === '' ? undefined : v)

const settings = demoEnvironment.extend({
  PORT: z.preprocess(unsetWhenEmpty, z.coerce.number().int().min(0).max(65_535).default(4010)),
  HOST: z.preprocess(unsetWhenEmpty, z.string().min(1).default('127.0.0.1')),
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
  console.error(invalidSetting(parsed.error))
  process.exit(1)
}
const env = parsed.data

const logger = createLogger('info')
const demo = new DemoUpstream({
  port: env.PORT,
  host: env.HOST,
  admin: env.DEMO_ADMIN,
  ...(env.UPSTREAM_LANGUAGE_HEADER === undefined
    ? {}
    : { languageHeader: env.UPSTREAM_LANGUAGE_HEADER }),
})
demo.configure(env)

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
  { url, latencyMs: demo.latencyMs, faults: shown(demo.faultSettings), admin: demo.adminUrl },
  `Demo upstream ready at ${url} (Authorization: Bearer ${DEMO_TOKEN})${adminNote(demo.adminUrl)}`,
)

async function shutdown(signal: string) {
  logger.info(`${signal} received: stopping the demo upstream`)
  await demo.stop()
  process.exit(0)
}
process.once('SIGTERM', () => void shutdown('SIGTERM'))
process.once('SIGINT', () => void shutdown('SIGINT'))
