import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { companyArgs, michiels } from '../support/fixtures.js'
import {
  REDIS_SKIP_REASON,
  type RedisServer,
  redisAvailable,
  startRedis,
} from '../support/redis.js'
import { type GraphQLResponse, startStack } from '../support/stack.js'

/**
 * The cache of upstream reads across operations: what a repeated or concurrent operation costs
 * the upstream, whose reads may serve whom, when an entry is read again, and what a failing
 * upstream or a failing Redis does to callers. Every count is the demo upstream's own log.
 */

const TTL = 300
const stack = await startStack({ cacheTtlSeconds: TTL, cacheStaleSeconds: 60 })
/** Entries expire after one second. */
const short = await startStack({ cacheTtlSeconds: 1, cacheStaleSeconds: 60 })
/** A Redis the replicas share, when redis-server is installed. */
const redis: RedisServer | undefined = redisAvailable ? await startRedis() : undefined
afterAll(() => redis?.stop())
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

type Cost = { upstreamCalls: number; cacheHits: number }
const costOf = (body: GraphQLResponse<unknown>) => body.extensions?.cost as Cost
const upstreamPaths = () => demo.calls().map((c) => c.path)

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
    const query = `{ company(country: ${company.country}, number: "${company.companyNumber}") { financials(first: 3, after: null) { totalCount } } }`
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
  it('lets the upstream’s max-age shorten the default TTL', async () => {
    const query = `{ list(listId: ${list.id}) { createdBy } }`
    demo.inject({ path: `/v1/lists/${list.id}`, headers: { 'cache-control': 'max-age=1' } })
    await stack.post(query, {}, noCache)
    await stack.post(query)
    expect(upstreamPaths()).toHaveLength(1)
    await sleep(1100)
    await stack.post(query)
    expect(upstreamPaths()).toHaveLength(2)
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
  const query = `{ list(listId: ${list.id}) { name } }`

  it('reads again once the TTL has passed', async () => {
    const { post, demo: upstream } = short
    await post(query)
    await post(query)
    expect(upstream.calls()).toHaveLength(1)
    await sleep(1100)
    await post(query)
    expect(upstream.calls()).toHaveLength(2)
  })

  it('serves the expired entry when the upstream fails, and says so', async () => {
    const { post, demo: upstream } = short
    await post(query)
    await sleep(1100)
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
    await sleep(1100)
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
    await sleep(1100)
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

describe.skipIf(!redisAvailable)(
  redisAvailable
    ? 'replicas sharing Redis'
    : `replicas sharing Redis: skipped, ${REDIS_SKIP_REASON}`,
  () => {
    const replicas = () => {
      const redisUrl = redis?.url
      return [stack.replica({ redisUrl }), stack.replica({ redisUrl })] as const
    }

    it('replica 2 answers from what replica 1 read', async () => {
      const [one, two] = replicas()
      const first = await one.post(companyPage)
      expect(first.body.errors).toBeUndefined()
      expect(demo.calls().length).toBeGreaterThan(0)
      demo.reset()
      const second = await two.post(companyPage)
      expect(second.body.data).toEqual(first.body.data)
      expect(demo.calls()).toEqual([])
      expect(costOf(second.body).cacheHits).toBeGreaterThan(0)
      // Again, now from replica 2's own tier, where the answer came from Redis; and once more on
      // a replica started after the reads (a restart against a warm Redis).
      const third = stack.replica({ redisUrl: redis?.url })
      for (const replica of [two, two, third, third]) {
        const again = await replica.post(companyPage)
        expect(again.body.errors).toBeUndefined()
        expect(again.body.data).toEqual(first.body.data)
      }
      expect(demo.calls()).toEqual([])
    })

    it('keeps no token in Redis: keys hold a keyed hash', async () => {
      const client = new Redis(redis?.url ?? '')
      try {
        const keys = await client.keys('*')
        expect(keys.length).toBeGreaterThan(0)
        for (const key of keys) expect(key).not.toContain('demo-token')
      } finally {
        client.disconnect()
      }
    })

    it('makes 5 + 5 identical operations on two replicas cost about one set of calls', async () => {
      const [one, two] = replicas()
      const query = `{ lists(first: 7) { nodes { name } } }`
      const held = demo.hold('/v1/lists')
      const answers = [one, two].flatMap((replica) =>
        Array.from({ length: 5 }, () => replica.post(query)),
      )
      await demo.waitForCalls((calls) => calls.length >= 1)
      // Give the other replica time to find the lock and start waiting for the answer.
      await sleep(100)
      held.release()
      const bodies = (await Promise.all(answers)).map((a) => a.body)
      for (const body of bodies) expect(body.errors).toBeUndefined()
      expect(demo.calls()).toHaveLength(1)
      expect(bodies.reduce((sum, body) => sum + costOf(body).cacheHits, 0)).toBe(9)
    })

    it('holds UPSTREAM_RATE_LIMIT over both replicas together, as the upstream’s log shows', async () => {
      const rate = 10
      const redisUrl = redis?.url
      const limited = [
        stack.replica({ redisUrl, upstreamRateLimit: rate }),
        stack.replica({ redisUrl, upstreamRateLimit: rate }),
      ]
      // 30 different reads, 15 from each replica, all at once.
      const companies = demo.data.companies.slice(100, 130)
      const answers = companies.map((c, i) =>
        limited[i % 2]?.post(
          `{ company(country: ${c.country}, number: "${c.companyNumber}") { financials(first: 1) { totalCount } } }`,
        ),
      )
      const bodies = (await Promise.all(answers)).map((a) => a?.body)
      for (const body of bodies) expect(body?.errors).toBeUndefined()
      const times = demo.calls().map((c) => c.at)
      expect(times).toHaveLength(30)
      // A bucket of one second's worth (10), then one every 100 ms: the 30th call is sent 2 s
      // after the first at the earliest, whichever replica sends it. Without the shared bucket
      // each replica would send its 15 within 0.5 s.
      expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(
        ((30 - rate) / rate) * 1000 - 50,
      )
      // And no second of the run saw more than the bucket plus one second's refill.
      for (const start of times) {
        expect(times.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(
          2 * rate,
        )
      }
    })

    it('keeps the upstream’s max-age on the replica that waited for another’s read', async () => {
      const [one, two] = replicas()
      const [, , , fourth] = demo.data.lists
      const query = `{ list(listId: ${fourth?.id}) { name } }`
      demo.inject({ path: `/v1/lists/${fourth?.id}`, headers: { 'cache-control': 'max-age=1' } })
      const held = demo.hold(`/v1/lists/${fourth?.id}`)
      const answers = [one.post(query), two.post(query)]
      await demo.waitForCalls((calls) => calls.length >= 1)
      await sleep(100)
      held.release()
      await Promise.all(answers)
      expect(demo.calls()).toHaveLength(1)
      await sleep(1100)
      demo.reset()
      for (const replica of [one, two]) await replica.post(query)
      // Expired on both: the first re-reads it, the second takes that answer from Redis.
      expect(demo.calls()).toHaveLength(1)
    })

    it('lets go of a read whose replica died: the others load it themselves within a second', async () => {
      const [, , , , fifth] = demo.data.lists
      const query = `{ list(listId: ${fifth?.id}) { name } }`
      const doomed = replicas()[0]
      const held = demo.hold(`/v1/lists/${fifth?.id}`)
      const lost = doomed.post(query)
      await demo.waitForCalls((calls) => calls.length >= 1)
      // Its connection to Redis is gone: it can neither finish nor renew its lock.
      await doomed.gateway.close()
      await lost.catch(() => undefined)
      held.release()
      // The survivor waits for the lock, which lapses within a second, well inside its deadline.
      const survivor = stack.replica({ redisUrl: redis?.url, operationTimeoutMs: 1800 })
      const answer = await survivor.post(query)
      expect(answer.body.errors).toBeUndefined()
      expect(answer.body.data).toEqual({ list: { name: fifth?.name } })
    })

    it('keeps serving when Redis dies mid-run, and uses it again when it is back', async () => {
      const [one] = replicas()
      const query = (first: number) => `{ lists(first: ${first}) { totalCount } }`
      expect((await one.post(query(2))).body.errors).toBeUndefined()
      await redis?.kill()
      demo.reset()
      const during = await one.post(query(3))
      expect(during.body.errors).toBeUndefined()
      expect(during.body.data).toEqual({ lists: { totalCount: demo.data.lists.length } })
      expect(demo.calls()).toHaveLength(1)
      // The in-process tier still answers what this replica read before.
      demo.reset()
      expect((await one.post(query(2))).body.errors).toBeUndefined()
      expect(demo.calls()).toEqual([])
      await redis?.restart()
    })
  },
)

describe('the in-process tier', () => {
  it('holds as many entries as CACHE_MAX_BYTES allows, not a fixed count', async () => {
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

describe('Redis unreachable from the start', () => {
  it('serves from the upstream (and the in-process tier) as if there were no Redis', async () => {
    const nowhere = stack.replica({ redisUrl: 'redis://127.0.0.1:1' })
    const first = await nowhere.post(companyPage)
    expect(first.body.errors).toBeUndefined()
    const calls = demo.calls().length
    expect(calls).toBeGreaterThan(0)
    const again = await nowhere.post(companyPage)
    expect(again.body.data).toEqual(first.body.data)
    expect(demo.calls()).toHaveLength(calls)
  })
})
