import { getOperationAST, getVariableValues, parse } from 'graphql'
import { loadConfig } from '../src/config.js'
import type { ReceivedCall } from '../src/demo-upstream/server.js'
import { analyse } from '../src/operation/analysis.js'
import { schema } from '../src/schema/index.js'
import { data, listId } from './demo-data.js'
import { type DemoThread, startDemoThread } from './demo-thread.js'
import { failurePaths } from './failure-paths.js'
import { fairShares } from './fair-shares.js'
import { type Answer, ask, gatewayWith, ms, run, timed } from './gateway.js'
import { SMALL, TRAVERSAL } from './queries.js'
import { replicas } from './replicas.js'
import { percentile } from './stats.js'

/**
 * Scenarios 4–10 of `npm run bench` (see bench/run.ts), in process: the gateway through
 * `yoga.fetch`, the demo upstream on a worker thread, loopback HTTP (7: bench/fair-shares.ts,
 * 8: bench/replicas.ts, 9 and 10: bench/failure-paths.ts).
 */

/** CACHE_TTL_SECONDS by default (300): what scenario 6 turns the cache on with. */
const DEFAULT_CACHE_TTL = loadConfig({}).cacheTtlSeconds

/** A call as the demo received it: path and query (sorted), to count distinct reads. */
const readOf = (call: ReceivedCall) =>
  `${call.path}?${new URLSearchParams(Object.entries(call.query).sort()).toString()}`
const percent = (part: number, whole: number) =>
  whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)} %`

export async function runInProcess() {
  const demo = await startDemoThread()
  console.log(
    `\nIN PROCESS: gateway through yoga.fetch, demo upstream on a worker thread at ${demo.url}`,
  )
  await fairness(demo)
  await estimate()
  await cache(demo)
  await fairShares(demo)
  await replicas(demo)
  await failurePaths(demo)
  await demo.stop()
}

/** 4. One caller's small query, alone and while another runs 8 traversals at once. */
async function fairness(demo: DemoThread) {
  console.log(
    '\n4. fairness: one caller’s small query, alone and while another caller runs 8 traversals at once (20 ms latency, 32 connections)',
  )
  await demo.reset()
  await demo.setLatency(20)
  const gateway = gatewayWith(demo, { upstreamMaxConnections: 32 })
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

/** 5. The analysis (estimate) of a query whose fragments spread each other (2^60 paths when expanded). */
async function estimate() {
  console.log('\n5. estimate of a query whose fragments spread each other (60 levels, 2^60 paths)')
  let fragments =
    'fragment A0 on Company { financials(first: 1) { totalCount } } fragment B0 on Company { name }'
  for (let i = 1; i <= 60; i++) {
    fragments += ` fragment A${i} on Company { ...A${i - 1} ...B${i - 1} } fragment B${i} on Company { ...B${i - 1} ...A${i - 1} }`
  }
  const source = `{ company(country: BE, number: "0922178703") { ...A60 ...B60 } } ${fragments}`
  const document = parse(source)
  const operation = getOperationAST(document, undefined)
  if (!operation) throw new Error('no operation')
  const variables = getVariableValues(schema, [], {}).coerced ?? {}
  const times = await timed(20, async () => analyse(schema, document, operation, variables))
  console.log(
    `${source.length} bytes, estimate ${analyse(schema, document, operation, variables).calls} call(s): median ${percentile(times, 0.5).toFixed(2)} ms, max ${(times.at(-1) ?? 0).toFixed(2)} ms (uncached)`,
  )
}

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
  (body.data as { list?: { companies?: { pageInfo?: { endCursor?: string | null } } } } | undefined)
    ?.list?.companies?.pageInfo?.endCursor ?? null

/** 6. The visitors' plans at 20 ms upstream latency, all at once, without and with the cache. */
async function cache(demo: DemoThread) {
  console.log(
    '\n6. cache: mixed workload at 20 ms upstream latency (8 callers, one upstream token, paging shared lists at once)',
  )
  const off = await workload(demo, 0)
  const on = await workload(demo, DEFAULT_CACHE_TTL)
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

/** Every visitor's plan at once through a gateway with `cacheTtlSeconds`; what it cost. */
async function workload(demo: DemoThread, cacheTtlSeconds: number) {
  await demo.reset()
  await demo.setLatency(20)
  const gateway = gatewayWith(demo, { upstreamMaxConnections: 32, cacheTtlSeconds })
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
