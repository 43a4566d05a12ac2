import { partsAsTheyArrive } from '../test/support/incremental.js'
import { data } from './demo-data.js'
import { type DemoThread, startDemoThread } from './demo-thread.js'
import { ask, type Gateway, gatewayWith } from './gateway.js'

/**
 * Scenarios 9 and 10 of `npm run bench` (issue 22's figures; `--only=failure-paths` runs these
 * alone), cache off unless said:
 *
 * 9. @defer: a company page at 300 ms upstream latency, its financials deferred, against the same
 *    page without @defer and without the financials; then with its statements 1 s slower.
 * 10. An upstream that answers only 503: the upstream requests of 25 reads one after the other
 *    (a company's latest statement each), with stale entries in the cache, with nothing cached,
 *    and with circuits off (UPSTREAM_CIRCUIT_FAILURES=0).
 */

const company = data.companies.find(
  (c) => data.financialsOf(c).length > 0 && data.lookalikesOf(c).length >= 3,
)
if (!company) throw new Error('no company with statements and lookalikes')
const at = `country: ${company.country}, number: "${company.companyNumber}"`
const HEADER = 'fragment Header on Company { id name place }'
const FINANCIALS =
  'fragment Financials on Company { financials(first: 5) { nodes { endDate profitability { revenue } } } }'
const LOOKALIKES = 'fragment Lookalikes on Company { lookalikes(first: 3) { totalCount } }'
const NAMED = 'fragment Lookalikes on Company { lookalikes(first: 3) { nodes { name } } }'
/** A company page, its financials deferred (`@defer`), without @defer, and without them. */
const page = (defer: string, lookalikes = LOOKALIKES) =>
  `{ company(${at}) { ...Header ${defer} ...Lookalikes } } ${HEADER} ${defer ? FINANCIALS : ''} ${lookalikes}`
const PAGES = [
  ['the page (header, lookalikes; financials)', LOOKALIKES],
  ["the page with the lookalikes' names", NAMED],
] as const
const LATENCY_MS = 300
const SLOWER_MS = 1000

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

/**
 * 9. A company page at 300 ms upstream latency, then with its statements 1 s slower still: when
 * the first part and the whole answer arrive with the financials deferred, against the same page
 * without @defer and without the financials (issue 27: the first part within 1.25 × the page
 * without them, the whole within 1.15 × the page without @defer). Medians of 3 runs.
 */
async function deferFirstPart(demo: DemoThread) {
  console.log(
    `\n9. @defer: a company page at ${LATENCY_MS} ms upstream latency (multipart/mixed, cache off, medians of 3 runs)`,
  )
  const gateway = gatewayWith(demo, {})
  const timed = async (query: string) => {
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
    let first: number | undefined
    for await (const part of partsAsTheyArrive(response)) {
      first ??= performance.now() - started
      if (part.errors?.length || part.incremental?.some((p) => p.errors?.length)) {
        throw new Error(`errors: ${JSON.stringify(part).slice(0, 300)}`)
      }
    }
    return { first: first ?? 0, whole: performance.now() - started }
  }
  for (const slower of [0, SLOWER_MS]) {
    for (const [label, lookalikes] of PAGES) {
      const runs = {
        deferred: [] as number[],
        first: [] as number[],
        plain: [] as number[],
        bare: [] as number[],
      }
      for (let run = 0; run < 3; run++) {
        await demo.reset()
        if (slower) await demo.inject({ path: /\/financials$/, delayMs: LATENCY_MS + slower })
        await demo.inject({ path: /./, delayMs: LATENCY_MS })
        const deferred = await timed(page('...Financials @defer', lookalikes))
        runs.deferred.push(deferred.whole)
        runs.first.push(deferred.first)
        runs.plain.push((await timed(page('...Financials', lookalikes))).whole)
        runs.bare.push((await timed(page('', lookalikes))).whole)
      }
      const [first, whole, plain, bare] = [runs.first, runs.deferred, runs.plain, runs.bare].map(
        median,
      ) as [number, number, number, number]
      console.log(
        `${`${label}${slower ? `, statements ${slower / 1000} s slower` : ''}`.padEnd(72)} first part ${first.toFixed(0)} ms (${(first / bare).toFixed(2)} × the page without financials, ${bare.toFixed(0)} ms), whole ${whole.toFixed(0)} ms (${(whole / plain).toFixed(2)} × without @defer, ${plain.toFixed(0)} ms)`,
      )
    }
  }
  await demo.reset()
  await gateway.close()
}

const median = (values: number[]) =>
  values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

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
