import { partsAsTheyArrive } from '../test/support/incremental.js'
import { data } from './demo-data.js'
import { type DemoThread, startDemoThread } from './demo-thread.js'
import { ask, type Gateway, gatewayWith } from './gateway.js'

/**
 * Scenarios 9 and 10 of `npm run bench` (issue 22's figures; `--only=failure-paths` runs these
 * alone), cache off unless said:
 *
 * 9. @defer: a company page over multipart/mixed whose deferred read takes 2.5 s (a demo fault
 *    `delayMs: 2500` on that path): when its first part and its whole answer arrive, and its
 *    upstream calls, three runs each.
 * 10. An upstream that answers only 503: the upstream requests of 25 reads one after the other
 *    (a company's latest statement each), with stale entries in the cache, with nothing cached,
 *    and with circuits off (UPSTREAM_CIRCUIT_FAILURES=0).
 */

const company = data.companies.find(
  (c) => data.financialsOf(c).length > 0 && data.lookalikesOf(c).length > 0,
)
if (!company) throw new Error('no company with statements and lookalikes')
const at = `country: ${company.country}, number: "${company.companyNumber}"`
const HEADER = 'fragment Header on Company { id name place }'
const FINANCIALS = 'fragment Financials on Company { financials(first: 2) { totalCount } }'
const LOOKALIKES = 'fragment Lookalikes on Company { lookalikes(first: 2) { totalCount } }'
const PAGES = [
  [
    "Relay's order, ...Header ...Financials @defer ...Lookalikes; financials slow",
    /\/financials$/,
    `{ company(${at}) { ...Header ...Financials @defer ...Lookalikes } } ${HEADER} ${FINANCIALS} ${LOOKALIKES}`,
  ],
  [
    '{ name ...Lookalikes @defer }; lookalikes slow',
    /\/lookalikes$/,
    `{ company(${at}) { name ...Lookalikes @defer } } ${LOOKALIKES}`,
  ],
  [
    '{ name ...Financials @defer }; every financials read slow',
    /\/financials$/,
    `{ company(${at}) { name ...Financials @defer } } ${FINANCIALS}`,
  ],
] as const
const SLOW_MS = 2500

/** `npm run bench -- --only=failure-paths`: 9 and 10 alone, with a demo thread of their own. */
export async function runFailurePaths() {
  const demo = await startDemoThread()
  await failurePaths(demo)
  await demo.stop()
}

export async function failurePaths(demo: DemoThread) {
  await deferFirstPart(demo)
  await failingUpstream(demo)
}

/** 9. When the first part and the whole of each page arrive, with its deferred read slow. */
async function deferFirstPart(demo: DemoThread) {
  console.log(
    `\n9. @defer: a company page whose deferred read takes ${SLOW_MS / 1000} s (multipart/mixed, cache off, 3 runs each)`,
  )
  const gateway = gatewayWith(demo, {})
  for (const [label, path, query] of PAGES) {
    const first: number[] = []
    const whole: number[] = []
    const calls: number[] = []
    for (let run = 0; run < 3; run++) {
      await demo.reset()
      await demo.inject({ path, delayMs: SLOW_MS })
      const started = performance.now()
      const response = await gateway.yoga.fetch('http://bench/graphql', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'multipart/mixed',
          authorization: 'Bearer bench',
        },
        body: JSON.stringify({ query }),
      })
      for await (const part of partsAsTheyArrive(response)) {
        if (first.length === run) first.push(performance.now() - started)
        if (part.errors?.length || part.incremental?.some((p) => p.errors?.length)) {
          throw new Error(`errors: ${JSON.stringify(part).slice(0, 300)}`)
        }
      }
      whole.push(performance.now() - started)
      calls.push((await demo.calls()).length)
    }
    console.log(
      `${label.padEnd(80)} first part ${range(first)} ms, whole ${range(whole)} ms, upstream calls ${range(calls)}`,
    )
  }
  await demo.reset()
  await gateway.close()
}

const STATEMENT = `query Statement($country: Country!, $number: String!) {
  company(country: $country, number: $number) { financials(first: 1) { totalCount } }
}`
const companies = data.companies.slice(0, 25)

/** 10. 25 reads against an upstream that answers only 503, in three settings. */
async function failingUpstream(demo: DemoThread) {
  console.log(
    '\n10. an upstream that answers only 503: upstream requests for 25 reads one after the other (a company’s latest statement each)',
  )
  const cases = [
    ['stale entries in the cache (CACHE_TTL_SECONDS=1, read 1.1 s before)', { cacheTtlSeconds: 1 }],
    ['nothing cached', {}],
    ['nothing cached, circuits off (UPSTREAM_CIRCUIT_FAILURES=0)', { upstreamCircuitFailures: 0 }],
  ] as const
  for (const [label, overrides] of cases) {
    await demo.reset()
    const gateway = gatewayWith(demo, overrides)
    if ('cacheTtlSeconds' in overrides) {
      await readEach(gateway)
      await new Promise((resolve) => setTimeout(resolve, 1100))
      await demo.reset()
    }
    await demo.inject({ path: /./, status: 503 })
    const started = performance.now()
    const answers = await readEach(gateway)
    const wallMs = performance.now() - started
    const requests = (await demo.calls()).length
    const stale = answers.filter((a) => a.extensions?.cache?.stale).length
    const failed = answers.filter((a) => a.errors).length
    console.log(
      `${label.padEnd(70)} ${String(requests).padStart(3)} upstream requests; ${stale} answered stale, ${failed} failed; ${wallMs.toFixed(0)} ms`,
    )
    await gateway.close()
  }
  await demo.reset()
}

const readEach = async (gateway: Gateway) => {
  const answers = []
  for (const c of companies) {
    answers.push(await ask(gateway, STATEMENT, { country: c.country, number: c.companyNumber }))
  }
  return answers
}

const range = (values: number[]) => {
  const low = Math.min(...values)
  const high = Math.max(...values)
  return low === high ? low.toFixed(0) : `${low.toFixed(0)}–${high.toFixed(0)}`
}
