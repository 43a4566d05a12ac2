import { getVariableValues, parse } from 'graphql'
import { Pool, request } from 'undici'
import { loadConfig } from '../src/config.js'
import { estimateOperation, operationOf } from '../src/cost.js'
import { DemoData } from '../src/demo-upstream/data.js'
import type { ReceivedCall } from '../src/demo-upstream/server.js'
import { schema } from '../src/schema/index.js'
import { createGateway } from '../src/yoga.js'
import { startDemoThread } from './demo-thread.js'

/**
 * `npm run bench`: measured figures, never asserted. The demo upstream runs on its own thread
 * (loopback HTTP), as a real upstream runs elsewhere. Bounded: a fixed number of operations per
 * scenario, then it stops (about a minute and a half).
 *
 * Scenarios 1–4 measure the gateway's own work and its upstream calls: they run with the
 * cross-operation cache off (CACHE_TTL_SECONDS=0), or their warm-ups would fill it and the
 * figures would lie. Scenarios 5 and 6 measure the cache, on (default TTL) and off side by side.
 *
 * 1. The frontend traversal (list → 40 companies → financials + 3 lookalikes { name financials }
 *    + shareholders { company { name } }) at 0, 20 and 50 ms upstream latency, with the default
 *    UPSTREAM_MAX_CONNECTIONS (32) and with enough for no queueing (512); its wall time over
 *    (dependent round trips × latency).
 * 2. Throughput of a small query (a company's name and 5 full statements), 20 in flight.
 * 3. Fairness: a one-company query alone, then while another caller runs 8 traversals at once.
 * 4. The estimate of a query whose fragments spread each other (2^60 paths when expanded).
 * 5. Cache: the small query repeated (2,000 operations over 100 companies, 20 in flight, 20 ms
 *    upstream latency), three ways: gateway with the cache, gateway without it, and the same
 *    upstream reads sent straight to the demo with undici (one keep-alive Pool); operations/s,
 *    ratio to direct REST, p50/p99 latency, upstream calls (the calls the cache saved).
 * 6. Cache: a mixed workload at 20 ms upstream latency: 8 callers (different Authorization, one
 *    UPSTREAM_TOKEN, so one shared cache) each read their lists, then page 2–3 lists 3 pages deep
 *    (some on the same lists, some on shifted, overlapping pages, a few revisits), all at once;
 *    upstream calls and wall time without and with the cache, responses compared.
 */

const TRAVERSAL = `query Traversal($listId: Int!, $companies: Int!) {
  list(listId: $listId) {
    name
    companies(first: $companies) {
      edges {
        matchedSince
        node {
          name
          financials(first: 1) { nodes { endDate profitability { revenue } } }
          lookalikes(first: 3) { edges { score node { name financials(first: 1) { nodes { endDate } } } } }
          shareholders { percentage company { name } }
        }
      }
    }
  }
}`
/** list details → its companies → their own reads → the lookalikes' statements. */
const TRAVERSAL_ROUND_TRIPS = 4

const SMALL = `query CompanyFinancials($country: Country!, $number: String!) {
  company(country: $country, number: $number) {
    name
    financials(first: 5) {
      nodes {
        startDate endDate dateReceived healthIndicator jointCommitteeCodes
        profitability { revenue grossMargin ebitda ebit netProfit }
        liquidity { cash cashFlow netWorkingCapital netWorkingCapitalRequirement currentRatio quickRatio }
        solvency { totalAssets equity capital retainedEarnings debt longTermDebt shortTermDebt }
        people { employees newHires employeeMaleRatio employeeFemaleRatio }
      }
    }
  }
}`

const demo = await startDemoThread()
const data = new DemoData()
const listId = data.lists.find((l) => l.amountOfCompanies > 1000)?.id ?? 1001

/** CACHE_TTL_SECONDS by default (300): what scenarios 5 and 6 turn the cache on with. */
const DEFAULT_CACHE_TTL = loadConfig({}).cacheTtlSeconds

/** Cache off unless asked: scenarios 1–4 measure the gateway's work and upstream calls. */
function gatewayWith(maxConnections: number, cacheTtlSeconds = 0) {
  return createGateway({
    ...loadConfig({ NODE_ENV: 'production' }),
    upstreamUrl: demo.url,
    upstreamToken: 'demo-token',
    upstreamMaxConnections: maxConnections,
    cacheTtlSeconds,
  })
}

interface Cost {
  estimated: number
  limit: number
  upstreamCalls: number
  cacheHits: number
}
interface Answer {
  data?: unknown
  errors?: unknown[]
  extensions?: { cost?: Cost; cache?: { stale: boolean; staleReads: number } }
}

/** One operation through the gateway, as a client sends it; its answer, errors included. */
async function ask(
  gateway: ReturnType<typeof gatewayWith>,
  query: string,
  variables: object,
  caller = 'bench',
) {
  const response = await gateway.yoga.fetch('http://bench/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${caller}` },
    body: JSON.stringify({ query, variables }),
  })
  return (await response.json()) as Answer
}

/** One operation that must not fail. */
async function run(
  gateway: ReturnType<typeof gatewayWith>,
  query: string,
  variables: object,
  caller = 'bench',
) {
  const body = await ask(gateway, query, variables, caller)
  if (body.errors) throw new Error(`errors: ${JSON.stringify(body.errors).slice(0, 300)}`)
  return body
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0
const ms = (value: number, width = 8) => value.toFixed(0).padStart(width)
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`
async function timed(times: number, once: () => Promise<unknown>) {
  const durations: number[] = []
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    await once()
    durations.push(performance.now() - started)
  }
  return durations.sort((a, b) => a - b)
}

/**
 * `total` operations with `concurrency` in flight (each starts when one ends), each timed;
 * none starts after `maxMs`, so a slow run stops early (`count` says how many ran).
 */
async function closedLoop(
  total: number,
  concurrency: number,
  maxMs: number,
  once: (index: number) => Promise<unknown>,
) {
  const durations: number[] = []
  let next = 0
  const started = performance.now()
  const worker = async () => {
    while (next < total && performance.now() - started < maxMs) {
      const index = next++
      const begun = performance.now()
      await once(index)
      durations.push(performance.now() - begun)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const seconds = (performance.now() - started) / 1000
  return { count: durations.length, seconds, durations: durations.sort((a, b) => a - b) }
}

/** A call as the demo received it: path and query (sorted), to count distinct reads. */
const readOf = (call: ReceivedCall) =>
  `${call.path}?${new URLSearchParams(Object.entries(call.query).sort()).toString()}`
const percent = (part: number, whole: number) =>
  whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)} %`

console.log(`node ${process.version}, demo upstream on a worker thread at ${demo.url}\n`)
console.log(
  `1. traversal (list → 40 companies → financials + lookalikes(3) { name financials } + shareholders), ${TRAVERSAL_ROUND_TRIPS} dependent round trips`,
)
console.log(
  'latency  connections  runs   calls/op   min ms   median ms   p90 ms   median / (round trips × latency)',
)
for (const maxConnections of [32, 512]) {
  const gateway = gatewayWith(maxConnections)
  for (const latency of [0, 20, 50]) {
    await demo.setLatency(0)
    for (let i = 0; i < 3; i++) await run(gateway, TRAVERSAL, { listId, companies: 40 }) // warm-up
    const runs = latency === 0 ? 30 : 10
    let calls = 0
    const times = await timed(runs, async () => {
      await demo.reset()
      await demo.setLatency(latency)
      await run(gateway, TRAVERSAL, { listId, companies: 40 })
      calls = (await demo.calls()).length
    })
    const median = percentile(times, 0.5)
    const ratio = latency === 0 ? '' : (median / (TRAVERSAL_ROUND_TRIPS * latency)).toFixed(2)
    console.log(
      `${String(latency).padStart(5)} ms ${String(maxConnections).padStart(12)} ${String(runs).padStart(6)} ${String(calls).padStart(10)} ${ms(times[0] ?? 0)} ${ms(median, 11)} ${ms(percentile(times, 0.9))}   ${ratio}`,
    )
  }
  await gateway.close()
}

console.log('\n2. small query (company name + 5 full statements), 20 in flight, 0 ms latency')
{
  await demo.reset()
  const gateway = gatewayWith(32)
  const companies = data.companies.slice(0, 500)
  const total = 4000
  let next = 0
  const started = performance.now()
  const worker = async () => {
    while (next < total) {
      const company = companies[next++ % companies.length]
      await run(gateway, SMALL, { country: company?.country, number: company?.companyNumber })
    }
  }
  await Promise.all(Array.from({ length: 20 }, worker))
  const seconds = (performance.now() - started) / 1000
  const memory = process.memoryUsage()
  console.log(
    `${total} operations in ${seconds.toFixed(2)} s: ${(total / seconds).toFixed(0)} operations/s`,
  )
  console.log(
    `process memory after the run: rss ${mb(memory.rss)}, heap used ${mb(memory.heapUsed)} (gateway and benchmark; the demo runs on its own thread in the same process)`,
  )
  await gateway.close()
}

console.log(
  '\n3. fairness: one caller’s small query, alone and while another caller runs 8 traversals at once (20 ms latency, 32 connections)',
)
{
  await demo.reset()
  await demo.setLatency(20)
  const gateway = gatewayWith(32)
  const [company] = data.companies
  const small = () =>
    run(gateway, SMALL, { country: company?.country, number: company?.companyNumber }, 'light')
  await small()
  const alone = await timed(10, small)
  let busy = true
  const heavy = (async () => {
    while (busy) {
      await Promise.all(
        Array.from({ length: 8 }, () =>
          run(gateway, TRAVERSAL, { listId, companies: 40 }, 'heavy'),
        ),
      )
    }
  })()
  const loaded = await timed(10, small)
  busy = false
  await heavy
  const alonePart = percentile(alone, 0.5)
  const loadedPart = percentile(loaded, 0.5)
  console.log(
    `median alone ${ms(alonePart, 1)} ms, under load ${ms(loadedPart, 1)} ms (× ${(loadedPart / alonePart).toFixed(1)}); worst under load ${ms(loaded.at(-1) ?? 0, 1)} ms`,
  )
  await gateway.close()
}

console.log('\n4. estimate of a query whose fragments spread each other (60 levels, 2^60 paths)')
{
  let fragments =
    'fragment A0 on Company { financials(first: 1) { totalCount } } fragment B0 on Company { name }'
  for (let i = 1; i <= 60; i++) {
    fragments += ` fragment A${i} on Company { ...A${i - 1} ...B${i - 1} } fragment B${i} on Company { ...B${i - 1} ...A${i - 1} }`
  }
  const source = `{ company(country: BE, number: "0922178703") { ...A60 ...B60 } } ${fragments}`
  const document = parse(source)
  const operation = operationOf(document, undefined)
  if (!operation) throw new Error('no operation')
  const variables = getVariableValues(schema, [], {}).coerced ?? {}
  const times = await timed(20, async () =>
    estimateOperation(schema, document, operation, variables),
  )
  console.log(
    `${source.length} bytes, estimate ${estimateOperation(schema, document, operation, variables).calls} call(s): median ${percentile(times, 0.5).toFixed(2)} ms, max ${(times.at(-1) ?? 0).toFixed(2)} ms (uncached)`,
  )
}
console.log(
  '\n5. cache: repeated query at 20 ms upstream latency (small query, 2,000 operations cycling over 100 companies, 20 in flight)',
)
{
  const latency = 20
  const total = 2000
  const inFlight = 20
  const maxMs = 20_000
  const companies = data.companies.slice(0, 100)
  // Warm-ups (JIT, connections) on other companies, so they leave nothing measured in the cache.
  const warmUpCompanies = data.companies.slice(1000, 1100)
  const variablesOf = (company: (typeof companies)[number]) => ({
    country: company.country,
    number: company.companyNumber,
  })
  /** The one upstream read the gateway makes for the small query (seen in its calls below). */
  const readPath = (company: (typeof companies)[number]) =>
    `/v1/companies/${company.country}/${encodeURIComponent(company.companyNumber)}/financials?limit=5&offset=0`

  interface Way {
    name: string
    once: (company: (typeof companies)[number]) => Promise<unknown>
    close(): Promise<void>
    cost?: { upstreamCalls: number; cacheHits: number; errors: number; firstError?: string }
  }
  const throughGateway = (name: string, cacheTtlSeconds: number): Way => {
    const gateway = gatewayWith(32, cacheTtlSeconds)
    const cost = {
      upstreamCalls: 0,
      cacheHits: 0,
      errors: 0,
      firstError: undefined as string | undefined,
    }
    return {
      name,
      cost,
      close: () => gateway.close(),
      once: async (company) => {
        const body = await ask(gateway, SMALL, variablesOf(company))
        if (body.errors) {
          cost.errors++
          cost.firstError ??= JSON.stringify(body.errors).slice(0, 300)
        }
        cost.upstreamCalls += body.extensions?.cost?.upstreamCalls ?? 0
        cost.cacheHits += body.extensions?.cost?.cacheHits ?? 0
      },
    }
  }
  const direct = (): Way => {
    const pool = new Pool(demo.url, { connections: 32 })
    return {
      name: 'direct REST (undici Pool)',
      close: () => pool.close(),
      once: async (company) => {
        const response = await request(`${demo.url}${readPath(company)}`, {
          dispatcher: pool,
          headers: { authorization: 'Bearer demo-token' },
        })
        const body = await response.body.text()
        if (response.statusCode !== 200) throw new Error(`direct REST: ${response.statusCode}`)
        JSON.parse(body)
      },
    }
  }

  const results = []
  for (const make of [
    () => throughGateway(`gateway, cache on (${DEFAULT_CACHE_TTL} s)`, DEFAULT_CACHE_TTL),
    () => throughGateway('gateway, cache off', 0),
    direct,
  ]) {
    const way = make()
    await demo.reset()
    await closedLoop(warmUpCompanies.length, inFlight, maxMs, (i) =>
      way.once(warmUpCompanies[i % warmUpCompanies.length] as (typeof companies)[number]),
    )
    if (way.cost) Object.assign(way.cost, { upstreamCalls: 0, cacheHits: 0 })
    await demo.reset()
    await demo.setLatency(latency)
    const loop = await closedLoop(total, inFlight, maxMs, (i) =>
      way.once(companies[i % companies.length] as (typeof companies)[number]),
    )
    const calls = await demo.calls()
    await demo.reset()
    await way.close()
    results.push({ way, loop, calls })
  }

  const directRate = (results[2]?.loop.count ?? 0) / (results[2]?.loop.seconds ?? 1)
  console.log(
    'way                               ops  seconds    ops/s  × direct   p50 ms   p99 ms  upstream calls  calls/op',
  )
  for (const { way, loop, calls } of results) {
    const rate = loop.count / loop.seconds
    console.log(
      `${way.name.padEnd(30)} ${String(loop.count).padStart(6)} ${loop.seconds.toFixed(2).padStart(8)} ${rate.toFixed(0).padStart(8)} ${(rate / directRate).toFixed(2).padStart(9)} ${ms(percentile(loop.durations, 0.5))} ${ms(percentile(loop.durations, 0.99))} ${String(calls.length).padStart(15)} ${(calls.length / loop.count).toFixed(3).padStart(9)}`,
    )
  }
  const [on, off, straight] = results
  if (on && off && straight) {
    const saved = off.calls.length - on.calls.length
    const distinct = new Set(on.calls.map(readOf)).size
    console.log(
      `cache saved ${saved} of ${off.calls.length} upstream calls (${percent(saved, off.calls.length)}); distinct reads ${distinct} (${companies.length} companies), so ${on.calls.length - distinct} call(s) above the minimum`,
    )
    const offReads = [...new Set(off.calls.map(readOf))].sort().join()
    const directReads = [...new Set(straight.calls.map(readOf))].sort().join()
    console.log(
      `direct REST sends the reads the gateway sends: ${offReads === directReads ? 'yes' : 'NO, they differ'}`,
    )
    for (const { way, calls } of [on, off]) {
      const cost = way.cost
      if (!cost) continue
      const mismatch =
        cost.upstreamCalls === calls.length ? '' : ` (≠ ${calls.length} calls the demo received)`
      console.log(
        `${way.name}: extensions.cost sums upstreamCalls ${cost.upstreamCalls}${mismatch}, cacheHits ${cost.cacheHits}; operations with errors ${cost.errors}${cost.firstError ? `, first: ${cost.firstError}` : ''}`,
      )
    }
  }
}

console.log(
  '\n6. cache: mixed workload at 20 ms upstream latency (8 callers, one upstream token, paging shared lists at once)',
)
{
  const LISTS = 'query Lists { lists(first: 10) { nodes { listId name companyCount } } }'
  const PAGE = `query ListPage($listId: Int!, $first: Int!, $after: String) {
  list(listId: $listId) {
    companies(first: $first, after: $after) {
      edges { node { name financials(first: 1) { nodes { endDate } } } }
      pageInfo { endCursor }
    }
  }
}`
  /**
   * Fixed plans: every caller first reads its lists, then walks each of its lists 3 pages deep
   * (20 a page; a `shifted` walk starts with a page of 10, so its pages overlap the others' by
   * half), then revisits the first page of one list. All lists have at least 100 companies.
   */
  interface Visitor {
    walks: { listId: number; shifted?: boolean }[]
    revisit?: number
  }
  const visitors: Visitor[] = [
    { walks: [{ listId: 1001 }, { listId: 1002 }, { listId: 1004 }] },
    { walks: [{ listId: 1001 }, { listId: 1006 }] },
    { walks: [{ listId: 1001, shifted: true }, { listId: 1008 }] },
    { walks: [{ listId: 1002 }, { listId: 1004, shifted: true }], revisit: 1002 },
    { walks: [{ listId: 1002, shifted: true }, { listId: 1009 }, { listId: 1006 }] },
    { walks: [{ listId: 1008 }, { listId: 1001 }], revisit: 1008 },
    { walks: [{ listId: 1009 }, { listId: 1004 }] },
    { walks: [{ listId: 1006 }, { listId: 1002 }, { listId: 1001 }], revisit: 1006 },
  ]
  const endCursorOf = (body: Answer) =>
    (
      body.data as
        | { list?: { companies?: { pageInfo?: { endCursor?: string | null } } } }
        | undefined
    )?.list?.companies?.pageInfo?.endCursor ?? null

  const workload = async (cacheTtlSeconds: number) => {
    await demo.reset()
    await demo.setLatency(20)
    const gateway = gatewayWith(32, cacheTtlSeconds)
    const answers = new Map<string, string>()
    const tally = { operations: 0, upstreamCalls: 0, cacheHits: 0, errors: 0, stale: 0 }
    let firstError: string | undefined
    const operate = async (step: string, query: string, variables: object, caller: string) => {
      const body = await ask(gateway, query, variables, caller)
      tally.operations++
      tally.upstreamCalls += body.extensions?.cost?.upstreamCalls ?? 0
      tally.cacheHits += body.extensions?.cost?.cacheHits ?? 0
      if (body.extensions?.cache?.stale) tally.stale++
      if (body.errors) {
        tally.errors++
        firstError ??= JSON.stringify(body.errors).slice(0, 300)
      }
      answers.set(`${caller} ${step}`, JSON.stringify(body.data))
      return body
    }
    const started = performance.now()
    await Promise.all(
      visitors.map(async (visitor, index) => {
        const caller = `user-${index + 1}`
        // Staggered a little, as people arrive; the plans themselves are fixed.
        await new Promise((resolve) => setTimeout(resolve, index * 10))
        await operate('lists', LISTS, {}, caller)
        for (const { listId, shifted } of visitor.walks) {
          let after: string | null = null
          for (let page = 0; page < 3; page++) {
            const first = shifted && page === 0 ? 10 : 20
            const body = await operate(
              `${listId} page ${page}`,
              PAGE,
              { listId, first, after },
              caller,
            )
            after = endCursorOf(body)
            if (after === null) break
          }
        }
        if (visitor.revisit !== undefined) {
          await operate(
            `${visitor.revisit} again`,
            PAGE,
            { listId: visitor.revisit, first: 20 },
            caller,
          )
        }
      }),
    )
    const wallMs = performance.now() - started
    const calls = await demo.calls()
    await demo.reset()
    await gateway.close()
    return { tally, firstError, answers, wallMs, calls, distinct: new Set(calls.map(readOf)).size }
  }

  const off = await workload(0)
  const on = await workload(DEFAULT_CACHE_TTL)
  console.log(
    'cache            operations  wall ms  upstream calls  distinct reads  cost.upstreamCalls  cost.cacheHits  errors',
  )
  for (const [name, result] of [
    ['off', off],
    [`on (${DEFAULT_CACHE_TTL} s)`, on],
  ] as const) {
    console.log(
      `${name.padEnd(16)} ${String(result.tally.operations).padStart(10)} ${ms(result.wallMs)} ${String(result.calls.length).padStart(15)} ${String(result.distinct).padStart(15)} ${String(result.tally.upstreamCalls).padStart(19)} ${String(result.tally.cacheHits).padStart(15)} ${String(result.tally.errors).padStart(7)}`,
    )
  }
  const saved = off.calls.length - on.calls.length
  const same = [...off.answers].filter(([key, data]) => on.answers.get(key) === data).length
  console.log(
    `cache saved ${saved} of ${off.calls.length} upstream calls (${percent(saved, off.calls.length)}); wall time × ${(on.wallMs / off.wallMs).toFixed(2)}; with the cache, ${on.calls.length - off.distinct} call(s) above the distinct reads of the workload (${off.distinct})`,
  )
  console.log(
    `responses with the cache identical to those without: ${same} of ${off.answers.size}; stale answers ${on.tally.stale}`,
  )
  for (const [name, result] of [
    ['off', off],
    ['on', on],
  ] as const) {
    if (result.firstError) console.log(`cache ${name}: first error: ${result.firstError}`)
  }
}
await demo.stop()
