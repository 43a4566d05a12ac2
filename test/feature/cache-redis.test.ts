import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { Begins } from '../../src/upstream/begin.js'
import { companyArgs, michiels } from '../support/fixtures.js'
import {
  connectedWith,
  REDIS_SKIP_REASON,
  type RedisServer,
  redisAvailable,
  startRedis,
} from '../support/redis.js'
import { costOf, startStack } from '../support/stack.js'

/**
 * The cache of upstream reads across replicas sharing Redis: what one replica read serves the
 * others, reads in flight shared between them, one UPSTREAM_RATE_LIMIT for all, and what a
 * replica or Redis dying (or Redis never being there) does to callers. Every count is the demo
 * upstream's own log.
 */

const stack = await startStack({ cacheTtlSeconds: 300, cacheStaleSeconds: 60 })
/** A Redis the replicas share, when redis-server is installed. */
const redis: RedisServer | undefined = redisAvailable ? await startRedis() : undefined
afterAll(() => redis?.stop())
const { demo } = stack
const companyPage = `{ company(${companyArgs(michiels)}) {
  name financials(first: 2) { nodes { endDate } } lookalikes(first: 2) { edges { score } } } }`

/**
 * Watches, until the test ends, for a replica waiting for another's read: one that found the
 * read's lock in Redis (it was sent) and waits for its answer. Released before that, a held read
 * would race a replica still on its way to the lock (it may miss both the lock and the answer,
 * and read too).
 */
function watchWaiting() {
  let held = 0
  const ask = Begins.prototype.ask
  const spy = vi.spyOn(Begins.prototype, 'ask').mockImplementation(async function (
    this: Begins,
    begin,
  ) {
    const answer = await ask.call(this, begin)
    if (answer?.kind === 'held') held++
    return answer
  })
  onTestFinished(() => spy.mockRestore())
  return {
    replica: () => vi.waitFor(() => expect(held).toBeGreaterThan(0), { timeout: 10_000 }),
  }
}

describe.skipIf(!redisAvailable)(
  redisAvailable
    ? 'replicas sharing Redis'
    : `replicas sharing Redis: skipped, ${REDIS_SKIP_REASON}`,
  () => {
    /** Gateways on the shared Redis (`config` added), once connected to it. */
    const connected = <T>(count: number, make: () => T) =>
      connectedWith(redis?.url ?? '', 2 * count, make)
    const replicas = () => {
      const redisUrl = redis?.url
      return connected(2, () => [stack.replica({ redisUrl }), stack.replica({ redisUrl })] as const)
    }

    it('replica 2 answers from what replica 1 read', async () => {
      const [one, two] = await replicas()
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
      const third = await connected(1, () => stack.replica({ redisUrl: redis?.url }))
      for (const replica of [two, two, third, third]) {
        const again = await replica.post(companyPage)
        expect(again.body.errors).toBeUndefined()
        expect(again.body.data).toEqual(first.body.data)
      }
      expect(demo.calls()).toEqual([])
    })

    it('reads past what it cannot serve in Redis (an older version’s entry, something unreadable) once, and replaces it', async () => {
      const [sixth] = demo.data.lists.slice(5)
      const query = `{ list(listId: ${sixth?.id}) { name } }`
      const [one] = await replicas()
      expect((await one.post(query)).body.errors).toBeUndefined()
      const direct = new Redis(redis?.url ?? '')
      onTestFinished(() => direct.disconnect())
      const [key = ''] = await direct.keys(`gw:reads:*/v1/lists/${sixth?.id}`)
      const json = JSON.stringify({ id: sixth?.id, name: 'old name', type: 'STATIC' })
      const past = Date.now() - 60_000
      // An older version kept expired entries in Redis, under its own prefix: never read now.
      await direct.del(key)
      const older = key.replace(/^gw:reads:2:/, 'gw:reads:')
      expect(older).not.toBe(key)
      await direct.set(older, `${past} ${past + 3_600_000} ${json}`, 'PX', 60_000)
      for (const unusable of [undefined, 'not an entry']) {
        if (unusable) await direct.set(key, unusable, 'PX', 60_000)
        demo.reset()
        const fresh = await connected(1, () => stack.replica({ redisUrl: redis?.url }))
        const answer = await fresh.post(query)
        expect(answer.body.data).toEqual({ list: { name: sixth?.name } })
        expect(demo.calls()).toHaveLength(1)
        expect(await direct.get(key)).toContain(`"name":${JSON.stringify(sixth?.name)}`)
      }
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
      const [one, two] = await replicas()
      const query = `{ lists(first: 7) { nodes { name } } }`
      const waiting = watchWaiting()
      const held = demo.hold('/v1/lists')
      const answers = [one, two].flatMap((replica) =>
        Array.from({ length: 5 }, () => replica.post(query)),
      )
      await demo.waitForCalls((calls) => calls.length >= 1)
      await waiting.replica()
      held.release()
      const bodies = (await Promise.all(answers)).map((a) => a.body)
      for (const body of bodies) expect(body.errors).toBeUndefined()
      expect(demo.calls()).toHaveLength(1)
      expect(bodies.reduce((sum, body) => sum + costOf(body).cacheHits, 0)).toBe(9)
    })

    it('holds UPSTREAM_RATE_LIMIT over both replicas together, as the upstream’s log shows', async () => {
      const rate = 10
      const redisUrl = redis?.url
      const limited = await connected(2, () => [
        stack.replica({ redisUrl, upstreamRateLimit: rate }),
        stack.replica({ redisUrl, upstreamRateLimit: rate }),
      ])
      // 30 different reads, 15 from each replica, all at once.
      const companies = demo.data.companies.slice(100, 130)
      const started = Date.now()
      const answers = companies.map((c, i) =>
        limited[i % 2]?.post(
          `{ company(country: ${c.country}, number: "${c.companyNumber}") { financials(first: 1) { totalCount } } }`,
        ),
      )
      const bodies = (await Promise.all(answers)).map((a) => a?.body)
      for (const body of bodies) expect(body?.errors).toBeUndefined()
      const times = demo.calls().map((c) => c.at)
      expect(times).toHaveLength(30)
      // The shared bucket (GCRA, src/upstream/rate-limit.ts) holds one second's worth, then
      // gives a turn every 100 ms: the k-th turn (from 0) comes no earlier than k·100 − 900 ms
      // after `started`, whichever replica takes it. A busy machine only makes calls later than
      // their turns, never earlier, so each call is held to that bound, counted from before the
      // first turn (a few ms allowed: clocks read whole milliseconds). Without the shared bucket
      // each replica would send its 15 within 0.5 s: the 11th call would come at once.
      const interval = 1000 / rate
      const earliest = (k: number) => started + k * interval - (1000 - interval) - 5
      const early = times
        .sort((a, b) => a - b)
        .map((at, k) => ({ k, msBeforeTurn: earliest(k) - at }))
        .filter(({ msBeforeTurn }) => msBeforeTurn > 0)
      expect(early).toEqual([])
    })

    it('keeps the upstream’s max-age on the replica that waited for another’s read', async () => {
      // The clock the cache reads (Date) stands still until the test moves it: the one-second
      // entry cannot expire while the waiting replica, slow on a loaded machine, takes it.
      vi.useFakeTimers({ toFake: ['Date'] })
      onTestFinished(() => {
        vi.useRealTimers()
      })
      const [one, two] = await replicas()
      const [, , , fourth] = demo.data.lists
      const query = `{ list(listId: ${fourth?.id}) { name } }`
      demo.inject({ path: `/v1/lists/${fourth?.id}`, headers: { 'cache-control': 'max-age=1' } })
      const waiting = watchWaiting()
      const held = demo.hold(`/v1/lists/${fourth?.id}`)
      const answers = [one.post(query), two.post(query)]
      await demo.waitForCalls((calls) => calls.length >= 1)
      await waiting.replica()
      held.release()
      const bodies = (await Promise.all(answers)).map((answer) => answer.body)
      expect(demo.calls()).toHaveLength(1)
      // Whichever replica made no call waited for the other's read.
      const waited = costOf(bodies[0] ?? { status: 0 }).upstreamCalls === 0 ? one : two
      const loaded = waited === one ? two : one
      // Redis expires the entry by its own clock, which the test cannot move.
      await sleep(1100)
      vi.setSystemTime(Date.now() + 1100)
      demo.reset()
      // Expired on the replica that waited too: it reads again; the other takes that from Redis.
      await waited.post(query)
      expect(demo.calls()).toHaveLength(1)
      await loaded.post(query)
      expect(demo.calls()).toHaveLength(1)
    })

    it('lets go of a read whose replica shut down: the others load it themselves at once', async () => {
      const [, , , , fifth] = demo.data.lists
      const query = `{ list(listId: ${fifth?.id}) { name } }`
      const [doomed] = await replicas()
      const held = demo.hold(`/v1/lists/${fifth?.id}`)
      const lost = doomed.post(query)
      await demo.waitForCalls((calls) => calls.length >= 1)
      // Its read ends with it, and its lock with the read.
      await doomed.gateway.close()
      await lost.catch(() => undefined)
      held.release()
      // The survivor finds no lock: it reads well inside its deadline.
      const survivor = await connected(1, () =>
        stack.replica({ redisUrl: redis?.url, operationTimeoutMs: 1800 }),
      )
      const answer = await survivor.post(query)
      expect(answer.body.errors).toBeUndefined()
      expect(answer.body.data).toEqual({ list: { name: fifth?.name } })
    })

    it('keeps serving when Redis dies mid-run, and uses it again when it is back', async () => {
      const [one] = await replicas()
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
