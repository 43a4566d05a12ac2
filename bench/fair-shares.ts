import { setTimeout as sleep } from 'node:timers/promises'
import { data, listId } from './demo-data.js'
import type { DemoThread } from './demo-thread.js'
import { ask, type Gateway, gatewayWith, ms, run, timed } from './gateway.js'
import { median } from './stats.js'

/**
 * 7. Fair shares that hold (issue 21): a light caller's one-read query (a company's latest
 * statement: one upstream read) alone, and under another caller's heavy load of four kinds, at
 * 50 ms upstream latency and UPSTREAM_MAX_CONNECTIONS=2, so that anything queued shows:
 * - 30 operations at once of one other caller (7 reads each, kept going);
 * - the same 30 operations, each with a made-up token: with UPSTREAM_TOKEN and no verification
 *   callers are told apart by address only, so still one caller (it came 30 before);
 * - cache on, behind a queued shared read: the other caller's 100 statement reads are queued and
 *   the light read is one of them (the 81st);
 * - UPSTREAM_RATE_LIMIT=10 and 32 connections, after the other caller's burst of 42 reads;
 * - pass-through (no UPSTREAM_TOKEN, the upstream verifies each token): 30 operations with 30
 *   made-up tokens, which the upstream refuses, from another address than the light caller's
 *   (whose token it accepts): a token the upstream never accepted buys no share of its own.
 */

const LIGHT = `query Light($country: Country!, $number: String!) {
  company(country: $country, number: $number) { financials(first: 1) { totalCount } }
}`
const PAGE = `query Page($listId: Int!, $first: Int!) {
  list(listId: $listId) { companies(first: $first) { nodes { financials(first: 1) { totalCount } } } }
}`
const members = data.lists.find((l) => l.id === listId)?.members.map((m) => m.company) ?? []
/** Companies outside the first 100 of the list: each light read a company of its own. */
const outsiders = data.companies.filter((c) => !members.slice(0, 100).includes(c))

/** The light caller: another machine than the heavy one (the gateway verifies no caller here). */
const light = (gateway: Gateway, i: number, company = outsiders[i], token = 'light') =>
  run(
    gateway,
    LIGHT,
    { country: company?.country, number: company?.companyNumber },
    token,
    '10.0.0.2',
  )

export async function fairShares(demo: DemoThread) {
  console.log(
    '\n7. fair shares: a light caller’s one-read query (ms, median of the runs) alone and under another caller’s load, 50 ms upstream latency',
  )
  await demo.reset()
  await demo.setLatency(50)
  const rows: [string, number[]][] = []
  const two = gatewayWith(demo, { upstreamMaxConnections: 2 })
  rows.push(['alone (2 connections)', await timed(7, (i) => light(two, i))])
  for (const [label, callers] of [
    ['under 30 operations of one other caller', () => 'heavy'],
    ['under 30 operations with 30 made-up tokens', (i: number) => `made-up-${i}`],
  ] as const) {
    let busy = true
    const heavy = Array.from({ length: 30 }, async (_, i) => {
      while (busy) await run(two, PAGE, { listId, first: 5 }, callers(i))
    })
    await sleep(300)
    rows.push([label, await timed(7, (i) => light(two, 10 + i))])
    busy = false
    await Promise.all(heavy)
  }
  await two.close()

  const queued: number[] = []
  for (let i = 0; i < 5; i++) {
    const cached = gatewayWith(demo, { upstreamMaxConnections: 2, cacheTtlSeconds: 300 })
    const backlog = run(cached, PAGE, { listId, first: 100 }, 'heavy')
    await sleep(200)
    queued.push(...(await timed(1, () => light(cached, 0, members[80]))))
    await backlog
    await cached.close()
  }
  rows.push(['cache on, behind a queued shared read (its 81st of 100)', queued])

  const burst: number[] = []
  const limitedAlone: number[] = []
  for (let i = 0; i < 5; i++) {
    const limited = gatewayWith(demo, { upstreamMaxConnections: 32, upstreamRateLimit: 10 })
    limitedAlone.push(...(await timed(1, () => light(limited, 20 + i))))
    await sleep(1000)
    const heavy = run(limited, PAGE, { listId, first: 40 }, 'heavy')
    await sleep(200)
    burst.push(...(await timed(1, () => light(limited, 30 + i))))
    await heavy
    await limited.close()
  }
  rows.push(['UPSTREAM_RATE_LIMIT=10, alone', limitedAlone])
  rows.push(['UPSTREAM_RATE_LIMIT=10, after a burst of 42 reads', burst])

  const passThrough = gatewayWith(demo, { upstreamMaxConnections: 2, upstreamToken: undefined })
  const accepted = (i: number) => light(passThrough, i, outsiders[i], 'demo-token')
  rows.push(['pass-through, alone', await timed(7, (i) => accepted(40 + i))])
  let refused = true
  const madeUp = Array.from({ length: 30 }, async (_, i) => {
    while (refused) await ask(passThrough, PAGE, { listId, first: 5 }, `made-up-${i}`)
  })
  await sleep(300)
  rows.push([
    'pass-through, under 30 operations with 30 refused made-up tokens',
    await timed(7, (i) => accepted(50 + i)),
  ])
  refused = false
  await Promise.all(madeUp)
  await passThrough.close()

  const alone = median(rows[0]?.[1] ?? [])
  for (const [label, durations] of rows) {
    const m = median(durations)
    console.log(
      `${label.padEnd(58)} ${ms(m)} ms  (× ${(m / alone).toFixed(1)} alone; worst ${ms(Math.max(...durations), 1)} ms, ${durations.length} runs)`,
    )
  }
}
