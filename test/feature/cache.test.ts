import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { claes, companyArgs, michiels } from '../support/fixtures.js'
import { costOf, startStack } from '../support/stack.js'

/**
 * The cache of upstream reads across operations, in one process: what a repeated or concurrent
 * operation costs the upstream, whose reads may serve whom, when an entry is read again, and
 * what a failing upstream does to callers. (Replicas sharing Redis: redis-cache.test.ts.) Every
 * count is the demo upstream's own log.
 */

const TTL = 300
const stack = await startStack({ cacheTtlSeconds: TTL, cacheStaleSeconds: 60 })
/** Entries expire after one second. */
const short = await startStack({ cacheTtlSeconds: 1, cacheStaleSeconds: 60 })
const noCache = { authorization: 'Bearer demo-token', 'cache-control': 'no-cache' }
const { demo } = stack
const company = michiels
// Tests that need a read nobody made before each take a list of their own.
const [list, failingList, uncachedList] = demo.data.lists
if (!list || !failingList || !uncachedList) throw new Error('not enough lists')

const companyPage = `{ company(${companyArgs(company)}) {
  name financials(first: 2) { nodes { endDate } } lookalikes(first: 2) { edges { score } } } }`
const listPage = (fields: string) =>
  `{ list(listId: ${list.id}) { name companies(first: 5) { ${fields} } } }`

const upstreamPaths = () => demo.calls().map((c) => c.path)

/**
 * In the describe block that calls it, the clock the cache reads (Date) stands still: an entry
 * expires when `later()` moves the clock past it, however slow the machine runs. Timers
 * (upstream delays, retries, timeouts) run for real.
 */
function stillClock() {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] })
  })
  afterAll(() => {
    vi.useRealTimers()
  })
}
const later = (ms: number) => vi.setSystemTime(Date.now() + ms)

describe('one process', () => {
  it('answers a repeated operation from the cache: no upstream call, cacheHits counted', async () => {
    const first = await stack.post(companyPage, {}, noCache)
    expect(first.body.errors).toBeUndefined()
    const calls = demo.calls().length
    expect(costOf(first.body)).toMatchObject({ upstreamCalls: calls, cacheHits: 0 })

    demo.reset()
    const again = await stack.post(companyPage)
    expect(again.body.data).toEqual(first.body.data)
    expect(demo.calls()).toEqual([])
    expect(costOf(again.body)).toEqual(
      expect.objectContaining({ upstreamCalls: 0, cacheHits: calls }),
    )
  })

  it('serves a read made by one operation shape to another that asks other fields', async () => {
    await stack.post(listPage('nodes { name }'), {}, noCache)
    demo.reset()
    const other = await stack.post(listPage('totalCount edges { matchedSince node { place } }'))
    expect(other.body.errors).toBeUndefined()
    expect(demo.calls()).toEqual([])
    expect(costOf(other.body).cacheHits).toBeGreaterThan(0)
  })

  it('keys by language: the same read in another language is read again', async () => {
    await stack.post(
      companyPage,
      {},
      { authorization: 'Bearer demo-token', 'accept-language': 'fr' },
    )
    demo.reset()
    await stack.post(
      companyPage,
      {},
      { authorization: 'Bearer demo-token', 'accept-language': 'nl' },
    )
    expect(demo.calls().map((c) => c.language)).toEqual(demo.calls().map(() => 'NL'))
    expect(demo.calls().length).toBeGreaterThan(0)
  })

  it('makes ten concurrent identical operations cost the calls of one', async () => {
    // A company no test before reads: its statements are not in the cache yet.
    const query = `{ company(${companyArgs(claes)}) { financials(first: 3) { totalCount } } }`
    const held = demo.hold(/\/financials$/)
    const answers = Array.from({ length: 10 }, () => stack.post(query))
    // All ten are in: the first one's read reached the upstream and is held there.
    await demo.waitForCalls((calls) => calls.length >= 1)
    await sleep(50)
    held.release()
    const bodies = (await Promise.all(answers)).map((a) => a.body)
    expect(demo.calls().filter((c) => c.path.endsWith('/financials'))).toHaveLength(1)
    for (const body of bodies) expect(body.errors).toBeUndefined()
    expect(bodies.reduce((sum, body) => sum + costOf(body).upstreamCalls, 0)).toBe(1)
    expect(bodies.reduce((sum, body) => sum + costOf(body).cacheHits, 0)).toBe(9)
  })

  it('reads fresh for a caller who sends Cache-Control: no-cache, and stores what it read', async () => {
    await stack.post(companyPage)
    demo.reset()
    const fresh = await stack.post(companyPage, {}, noCache)
    expect(costOf(fresh.body)).toMatchObject({ cacheHits: 0 })
    expect(demo.calls().length).toBe(costOf(fresh.body).upstreamCalls)
    expect(demo.calls().length).toBeGreaterThan(0)
    demo.reset()
    await stack.post(companyPage)
    expect(demo.calls()).toEqual([])
  })

  it('never caches a failure: the next operation asks the upstream again', async () => {
    const query = `{ list(listId: ${failingList.id}) { name } }`
    demo.inject({ path: `/v1/lists/${failingList.id}`, status: 500, times: 1 })
    const failed = await stack.post(query, {}, noCache)
    expect(failed.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR')
    const after = await stack.post(query)
    expect(after.body.data).toEqual({ list: { name: failingList.name } })
    expect(upstreamPaths()).toEqual([`/v1/lists/${failingList.id}`, `/v1/lists/${failingList.id}`])
  })

  it('follows the upstream: Cache-Control no-store is never reused', async () => {
    const query = `{ list(listId: ${uncachedList.id}) { type } }`
    demo.inject({ path: `/v1/lists/${uncachedList.id}`, headers: { 'cache-control': 'no-store' } })
    await stack.post(query, {}, noCache)
    await stack.post(query)
    await stack.post(query)
    expect(upstreamPaths()).toHaveLength(3)
  })
  describe('with a clock that moves only when told', () => {
    stillClock()

    it('lets the upstream’s max-age shorten the default TTL', async () => {
      const query = `{ list(listId: ${list.id}) { createdBy } }`
      demo.inject({ path: `/v1/lists/${list.id}`, headers: { 'cache-control': 'max-age=1' } })
      await stack.post(query, {}, noCache)
      await stack.post(query)
      expect(upstreamPaths()).toHaveLength(1)
      later(1100)
      await stack.post(query)
      expect(upstreamPaths()).toHaveLength(2)
    })
  })
})

describe('separate callers', () => {
  it('never serves what was read with one token to a caller with another', async () => {
    const query = `{ list(listId: ${list.id}) { name companyCount } }`
    const alice = await stack.post(query)
    expect(alice.body.errors).toBeUndefined()
    demo.reset()
    // The upstream refuses Bob's token: from the cache he would get the list read for Alice.
    const bob = await stack.post(query, {}, { authorization: 'Bearer bob-token' })
    expect(bob.body.data).toEqual({ list: null })
    expect(bob.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED')
    expect(demo.calls().map((c) => c.token)).toEqual(['bob-token'])
  })
})

describe('expiry and stale-if-error', () => {
  stillClock()
  const query = `{ list(listId: ${list.id}) { name } }`

  it('reads again once the TTL has passed', async () => {
    const { post, demo: upstream } = short
    await post(query)
    later(900)
    await post(query)
    expect(upstream.calls()).toHaveLength(1)
    later(200)
    await post(query)
    expect(upstream.calls()).toHaveLength(2)
  })

  it('serves the expired entry when the upstream fails, and says so', async () => {
    const { post, demo: upstream } = short
    await post(query)
    later(1100)
    upstream.inject({ path: `/v1/lists/${list.id}`, status: 503 })
    const stale = await post(query)
    expect(stale.body.errors).toBeUndefined()
    expect(stale.body.data).toEqual({ list: { name: list.name } })
    expect(stale.body.extensions?.cache).toEqual({ stale: true, staleReads: 1 })
    // The upstream was asked (and retried) before the stale entry answered.
    expect(upstream.calls().length).toBeGreaterThanOrEqual(2)
  })

  it('says stale to every operation that got the stale answer, those that joined it too', async () => {
    const { post, demo: upstream } = short
    const query = `{ list(listId: ${failingList.id}) { name } }`
    await post(query)
    later(1100)
    upstream.inject({ path: `/v1/lists/${failingList.id}`, status: 503, delayMs: 100 })
    const first = post(query)
    await upstream.waitForCalls((calls) => calls.length >= 2)
    const joined = await post(query)
    expect((await first).body.extensions?.cache).toEqual({ stale: true, staleReads: 1 })
    expect(joined.body.extensions?.cache).toEqual({ stale: true, staleReads: 1 })
    expect(joined.body.data).toEqual({ list: { name: failingList.name } })
  })

  it('never serves a stale entry for a 401, nor to a caller who asked for no-cache', async () => {
    const { post, demo: upstream } = short
    await post(query)
    later(1100)
    upstream.inject({ path: `/v1/lists/${list.id}`, status: 401 })
    const refused = await post(query)
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED')
    expect(refused.body.extensions?.cache).toBeUndefined()
    upstream.reset()
    upstream.inject({ path: `/v1/lists/${list.id}`, status: 503 })
    const fresh = await post(query, {}, noCache)
    expect(fresh.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR')
  })
})

describe('the in-process tier', () => {
  // 1,200 operations: 4 s on an idle machine, past the default 20 s beside busy processes.
  it('holds as many entries as CACHE_MAX_BYTES allows, not a fixed count', {
    timeout: 120_000,
  }, async () => {
    const roomy = stack.replica({ cacheTtlSeconds: TTL })
    const companies = demo.data.companies.slice(0, 1200)
    const read = (c: (typeof companies)[number]) =>
      roomy.post(
        `{ company(country: ${c.country}, number: "${c.companyNumber}") { financials(first: 1) { totalCount } } }`,
      )
    for (let i = 0; i < companies.length; i += 100) {
      await Promise.all(companies.slice(i, i + 100).map(read))
    }
    demo.reset()
    await Promise.all(companies.slice(0, 50).map(read))
    expect(demo.calls()).toEqual([])
  })
})
