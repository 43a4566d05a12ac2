import { z } from 'zod'
import { FAULT_KINDS, type Fault, MAX_DELAY_MS, parseFaultList, RESOURCES } from './faults.js'

/**
 * The demo's own settings (docs/demo-upstream.md, generated from the descriptions here): read
 * from the environment at start by both ways of running it (`npm start` without UPSTREAM_URL,
 * `npm run demo-upstream`); the fault settings are replaced at run time through /_demo/faults.
 */

/** An empty variable counts as unset, as shells and compose files often leave them. */
const optional = <T>(schema: z.ZodType<T>) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional())

/** The keys of a table, as the documentation quotes them. */
const quoted = (table: object) =>
  Object.keys(table)
    .map((key) => `\`${key}\``)
    .join(', ')

const delayMs = z.coerce
  .number({ error: 'must be a whole number of milliseconds' })
  .int('must be a whole number of milliseconds')
  .min(0, 'must be 0 or more')
  .max(MAX_DELAY_MS, `must be at most ${MAX_DELAY_MS}`)

/** The settings /_demo/faults shows and replaces. */
export const faultSettings = z.object({
  DEMO_FAULTS: optional(
    z.string().transform((text, context) => {
      const faults = parseFaultList(text)
      if (typeof faults !== 'string') return { text, faults }
      context.addIssue({ code: 'custom', message: faults })
      return z.NEVER
    }),
  ).describe(
    `comma-separated \`<resource>:<fault>\` (\`financials:503,contacts:timeout\`): every read of that resource fails so; resources ${quoted(RESOURCES)}; faults ${quoted(FAULT_KINDS)} (tables below)`,
  ),
  DEMO_FAULT_RATE: z.coerce
    .number({ error: 'must be a number from 0 to 1' })
    .min(0, 'must be a number from 0 to 1')
    .max(1, 'must be a number from 0 to 1')
    .default(0)
    .describe(
      'share of all other reads answered 503, drawn from a fixed seed: counted in the order they arrive, the same reads fail on every run (from start-up, or from the last change through `/_demo/faults`). The gateway retries a 503 (up to twice, while its retry budget lasts), so fewer fields fail than reads',
    ),
  DEMO_LATENCY_MS: delayMs
    .default(0)
    .describe('added before every answer, to model a remote service'),
})

/** Every setting of the demo, for the environment. */
export const demoEnvironment = faultSettings.extend({
  DEMO_ADMIN: optional(
    z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true'),
  ).describe(
    "`/_demo/faults` on the demo's port, with no token: a tool for development. Unset: served when the demo listens on loopback only (`npm start` always does), refused (403) otherwise; `true`: served on any interface; `false`: never",
  ),
})

export type FaultSettings = z.output<typeof faultSettings>

/** No fault at all. */
export const NO_FAULTS: FaultSettings = faultSettings.parse({})

/** The settings as /_demo/faults shows them (and takes them back) and the start-up log says. */
export const shown = (settings: FaultSettings) => ({
  DEMO_FAULTS: settings.DEMO_FAULTS?.text ?? '',
  DEMO_FAULT_RATE: settings.DEMO_FAULT_RATE,
  DEMO_LATENCY_MS: settings.DEMO_LATENCY_MS,
})

/** The faults the settings make, first match wins: the named resources', then the rate's. */
export function faultsOf(settings: FaultSettings): Fault[] {
  const rate = settings.DEMO_FAULT_RATE
  return [
    ...(settings.DEMO_FAULTS?.faults ?? []),
    ...(rate > 0 ? [{ path: /^\/v1\//, rate, status: 503 }] : []),
  ]
}

/** One line naming the first bad setting, as every start-up error of the project reads. */
export function invalidSetting(error: z.ZodError): string {
  const issue = error.issues[0]
  const name = issue?.path[0]
  const message = issue?.message ?? 'invalid value'
  return name === undefined
    ? `Invalid settings: ${message}`
    : `Invalid setting ${String(name)}: ${message}`
}

/** The demo's settings from the environment, or the one line that says which is wrong. */
export function readDemoSettings(
  env: Record<string, string | undefined>,
): { ok: true; settings: z.output<typeof demoEnvironment> } | { ok: false; message: string } {
  const parsed = demoEnvironment.safeParse(env)
  return parsed.success
    ? { ok: true, settings: parsed.data }
    : { ok: false, message: invalidSetting(parsed.error) }
}
