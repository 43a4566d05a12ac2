import { once } from 'node:events'
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { RateLimiter } from '../../src/upstream/rate-limit.js'
import { RedisLink } from '../../src/upstream/redis.js'
import { bigList } from '../support/fixtures.js'
import {
  connectedWith,
  REDIS_SKIP_REASON,
  type RedisServer,
  redisAvailable,
  startRedis,
} from '../support/redis.js'
import { type Client, startStack } from '../support/stack.js'

/**
 * UPSTREAM_RATE_LIMIT and CALLER_RATE_LIMIT shared by the replicas on one Redis (one GCRA script,
 * src/upstream/rate-limit.ts): one budget for all of them, waited for rather than failed; a
 * light caller's read on one replica not queued behind a burst on another; a 429's pause held by
 * every replica; each process's own budget while Redis is gone. Asserts on the turns given and
 * on the upstream's log, on times only as lower bounds (a busy machine sends later, never sooner).
 */

const rate = 10
const stack = await startStack({ upstreamToken: DEMO_TOKEN, upstreamRateLimit: rate })
const redis: RedisServer | undefined = redisAvailable ? await startRedis() : undefined
afterAll(() => redis?.stop())
const { demo } = stack
const far = Number.POSITIVE_INFINITY
const ask = (replica: Client | undefined, caller: string, query: string) =>
  replica?.post(query, {}, { authorization: `Bearer ${caller}` }) ??
  Promise.reject(new Error('none'))

describe.skipIf(!redisAvailable)(
  redisAvailable ? 'a rate budget over replicas' : `a rate budget: ${REDIS_SKIP_REASON}`,
  () => {
    const url = redis?.url ?? ''
    let tokens = 0
    /** A token key no other test uses. */
    const token = () => `token-${++tokens}`
    /** A replica's limiter, on a connection of its own once it is ready. */
    async function limiter(perToken?: number, perCaller?: number) {
      const link = new RedisLink(url)
      onTestFinished(() => link.close())
      if (!link.available) await once(link.client, 'ready')
      return new RateLimiter(perToken, perCaller, link)
    }

    it('shares one budget between replicas', async () => {
      const [a, b] = [await limiter(10), await limiter(10)]
      const key = token()
      const started = Date.now()
      const waits: number[] = []
      for (let i = 0; i < 30; i++) waits.push(await (i % 2 ? b : a).turn(key, `caller ${i}`, far))
      const elapsed = Date.now() - started
      const sorted = [...waits].sort((x, y) => x - y)
      // 10 at once, then one per 100 ms: the 30th comes 2 s after the first (less the time the
      // asking took, which refilled the bucket).
      expect(sorted[29]).toBeLessThanOrEqual(2000)
      expect(sorted[29]).toBeGreaterThanOrEqual(2000 - elapsed - 2)
      // Each replica's turns waited for the other's too: alone, 15 would end by 500 ms.
      expect(Math.max(...waits.filter((_, i) => i % 2 === 0))).toBeGreaterThan(1000 - elapsed)
      expect(Math.max(...waits.filter((_, i) => i % 2 === 1))).toBeGreaterThan(1000 - elapsed)
    })

    it('holds a caller to CALLER_RATE_LIMIT over every replica and every token', async () => {
      const [a, b] = [await limiter(undefined, 2), await limiter(undefined, 2)]
      expect(await a.turn(token(), 'caller', far)).toBe(0)
      expect(await b.turn(token(), 'caller', far)).toBe(0)
      expect(await a.turn(token(), 'caller', far)).toBeGreaterThan(0)
      expect(await b.turn(token(), 'another caller', far)).toBe(0)
    })

    it('refuses a turn past the longest wait and takes nothing', async () => {
      const [a, b] = [await limiter(1), await limiter(1)]
      const key = token()
      expect(await a.turn(key, 'one', far)).toBe(0)
      const refused = await b.turn(key, 'two', 100)
      expect(refused).toBeGreaterThan(100)
      expect(await a.turn(key, 'three', far)).toBeLessThanOrEqual(refused)
    })

    it('holds a token on every replica once one is told to pause (a 429), the held turns 1/rate apart', async () => {
      const [a, b] = [await limiter(10), await limiter(10)]
      const key = token()
      const started = Date.now()
      a.pause(key, 1500)
      await vi.waitFor(async () => expect(await b.turn(key, 'probe', 0)).toBeGreaterThan(0))
      const asked = Date.now()
      const first = await b.turn(key, 'one', far)
      const second = await b.turn(key, 'two', far)
      const elapsed = Date.now() - started
      expect(first).toBeLessThanOrEqual(1500)
      expect(first).toBeGreaterThanOrEqual(1500 - elapsed - 2)
      // 100 ms apart, less the time between the two asks (Redis's clock moved on meanwhile).
      expect(second - first).toBeGreaterThanOrEqual(100 - (Date.now() - asked) - 2)
      expect(await b.turn(token(), 'one', far)).toBe(0)
    })

    it('holds UPSTREAM_RATE_LIMIT over both replicas together, as the upstream’s log shows', async () => {
      const limited = await connectedWith(url, 2, () => [
        stack.replica({ redisUrl: url }),
        stack.replica({ redisUrl: url }),
      ])
      const companies = demo.data.companies.slice(100, 130)
      const started = Date.now()
      const answers = companies.map((c, i) =>
        ask(
          limited[i % 2],
          `caller ${i}`,
          `{ company(country: ${c.country}, number: "${c.companyNumber}") { financials(first: 1) { totalCount } } }`,
        ),
      )
      for (const answer of await Promise.all(answers)) expect(answer.body.errors).toBeUndefined()
      const times = demo.calls().map((c) => c.at)
      expect(times).toHaveLength(30)
      // The k-th turn (from 0) comes no earlier than k·100 − 900 ms after `started`, whichever
      // replica takes it (a few ms allowed: clocks read whole milliseconds). Without the shared
      // bucket each replica would send its 15 within 0.5 s.
      const early = times.sort((x, y) => x - y).filter((at, k) => at < started + k * 100 - 900 - 5)
      expect(early).toEqual([])
    })

    it('a light caller’s read on one replica is not queued behind a burst on another', async () => {
      const [one, two] = await connectedWith(url, 2, () => [
        stack.replica({ redisUrl: url }),
        stack.replica({ redisUrl: url }),
      ])
      const outsider = bigList.members[100]?.company
      if (!outsider) throw new Error('list 1001 has fewer than 101 members')
      const lightPath = `/v1/companies/${outsider.country}/${outsider.companyNumber}/financials`
      const burst = ask(
        one,
        'heavy',
        `{ list(listId: ${bigList.id}) { companies(first: 30) { nodes { financials(first: 1) { totalCount } } } } }`,
      )
      // The bucket's second's worth went to the burst; its further reads wait their turns.
      await demo.waitForCalls((calls) => calls.length >= rate)
      const asked = Date.now()
      const light = ask(
        two,
        'light',
        `{ company(country: ${outsider.country}, number: "${outsider.companyNumber}") { financials(first: 1) { totalCount } } }`,
      )
      const [heavy, answer] = await Promise.all([burst, light])
      expect([heavy.body.errors, answer.body.errors]).toEqual([undefined, undefined])
      const calls = demo.calls()
      const lightAt = calls.findIndex((c) => c.path === lightPath)
      // One reserved turn of the burst's (at most 1/rate away) is before it, not its 21 others.
      expect(lightAt).toBeLessThanOrEqual(rate + 3)
      expect(calls.filter((c) => c.path !== lightPath && c.at > asked).length).toBeGreaterThan(15)
    })
  },
)

describe.skipIf(!redisAvailable)(
  `when Redis goes away${redisAvailable ? '' : ` (${REDIS_SKIP_REASON})`}`,
  () => {
    it('each process keeps its own budget, mid-run and from the start', async () => {
      const own = await startRedis()
      onTestFinished(() => own.stop())
      const links = [new RedisLink(own.url), new RedisLink(own.url)]
      onTestFinished(async () => {
        await Promise.all(links.map((link) => link.close()))
      })
      await Promise.all(links.map((link) => once(link.client, 'ready')))
      const [a, b] = links.map((link) => new RateLimiter(1, undefined, link))
      expect(await a?.turn('t', 'one', far)).toBe(0)
      expect(await b?.turn('t', 'two', far)).toBeGreaterThan(0)
      await own.kill()
      await vi.waitFor(() => expect(links[1]?.available).toBe(false))
      // B counts alone now: its own full bucket, then one a second.
      expect(await b?.turn('u', 'two', far)).toBe(0)
      expect(await b?.turn('u', 'two', far)).toBeGreaterThan(0)
      // A replica starting while Redis is down limits too.
      const late = new RateLimiter(10, undefined, new RedisLink(own.url))
      for (let i = 0; i < 10; i++) expect(await late.turn('t', 'one', far)).toBe(0)
      expect(await late.turn('t', 'one', far)).toBeGreaterThan(0)
    })
  },
)
