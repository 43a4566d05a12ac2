import { Redis } from 'ioredis'
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { metricsOf, sample } from '../support/metrics.js'
import {
  commandsSince,
  connectedWith,
  REDIS_SKIP_REASON,
  redisAvailable,
  startRedis,
} from '../support/redis.js'
import { type Client, startStack } from '../support/stack.js'

/**
 * Circuits shared by replicas on one Redis (src/upstream/circuit.ts): failures are counted over
 * every replica, a circuit one replica opens keeps the others from calling the endpoint (those
 * that start later too), and the probe that closes it closes it on every replica. Counts are the
 * demo upstream's own log. The clock the circuits read (Date) stands still: a circuit is
 * half-open only once `later()` moves it.
 */

const stack = await startStack()
const { demo } = stack
const companies = demo.data.companies.slice(0, 12)
const FINANCIALS =
  'gateway_upstream_circuits_open{endpoint="/v1/companies/{countryCode}/{companyNumber}/financials"}'
const financials = (c: (typeof companies)[number]) =>
  `{ company(country: ${c.country}, number: "${c.companyNumber}") { financials(first: 1) { totalCount } } }`
const later = (ms: number) => vi.setSystemTime(Date.now() + ms)
const openOn = async (replica: Client) => sample(await metricsOf(replica), FINANCIALS)
const shownOpen = (replica: Client) =>
  vi.waitFor(async () => expect(await openOn(replica)).toBe(1), { timeout: 10_000 })
/** Each replica's read of its company in turn, as a load balancer hands them out. */
async function roundRobin(replicas: Client[], read: typeof companies) {
  const bodies = []
  for (const [i, c] of read.entries()) {
    bodies.push((await (replicas[i % replicas.length] as Client).post(financials(c))).body)
  }
  return bodies
}
const refused = { code: 'UPSTREAM_ERROR', retryable: true, retryAfterSeconds: expect.any(Number) }

describe.skipIf(!redisAvailable)(
  redisAvailable ? 'two replicas on one Redis' : `two replicas: skipped, ${REDIS_SKIP_REASON}`,
  async () => {
    const redis = redisAvailable ? await startRedis() : undefined
    const url = redis?.url ?? ''
    /** Replicas of one test, closed after it. */
    const replicas = async (count: number) => {
      const made = await connectedWith(url, 2 * count, () =>
        Array.from({ length: count }, () =>
          stack.replica({ redisUrl: url, upstreamCircuitOpenSeconds: 60 }),
        ),
      )
      onTestFinished(async () => {
        await Promise.all(made.map((replica) => replica.close()))
      })
      return made
    }
    afterAll(() => redis?.stop())
    // The circuits a test leaves open in Redis are not the next test's.
    beforeEach(async () => {
      const admin = new Redis(url)
      await admin.flushall()
      admin.disconnect()
    })
    beforeAll(() => {
      vi.useFakeTimers({ toFake: ['Date'] })
    })
    afterAll(() => {
      vi.useRealTimers()
    })

    it('the circuit one opens keeps the other from calling the endpoint; the probe that closes it closes it on both', async () => {
      // The second stays open longer: only the first's closing can close it early.
      const [first, second] = await connectedWith(url, 4, () => [
        stack.replica({ redisUrl: url, upstreamCircuitOpenSeconds: 10 }),
        stack.replica({ redisUrl: url, upstreamCircuitOpenSeconds: 60 }),
      ])
      if (!first || !second) throw new Error('no replicas')
      const listener = new Redis(url)
      onTestFinished(() => listener.disconnect())
      // Both listen before anything is told.
      await vi.waitFor(
        async () =>
          expect(await listener.pubsub('NUMSUB', 'gw:circuit')).toEqual(['gw:circuit', 2]),
        { timeout: 10_000 },
      )

      demo.inject({ path: /\/financials$/, status: 503 })
      for (const c of companies.slice(0, 5)) await first.post(financials(c))
      expect(demo.calls()).toHaveLength(15)
      expect(await openOn(first)).toBe(1)
      await vi.waitFor(async () => expect(await openOn(second)).toBe(1), { timeout: 10_000 })

      // The second replica never calls the failing endpoint: refused at once, for its own open time.
      demo.reset()
      demo.inject({ path: /\/financials$/, status: 503 })
      for (const c of companies.slice(5)) {
        const { body } = await second.post(financials(c))
        expect(body.errors?.[0]?.extensions).toEqual({
          code: 'UPSTREAM_ERROR',
          retryable: true,
          retryAfterSeconds: 60,
        })
      }
      expect(demo.calls()).toEqual([])

      // The upstream is back; the first's open time is over: its probe closes the circuit, on both.
      demo.reset()
      later(10_000)
      const probe = await first.post(financials(companies[0] as (typeof companies)[number]))
      expect(probe.body.errors).toBeUndefined()
      await vi.waitFor(async () => expect(await openOn(second)).toBe(0), { timeout: 10_000 })
      const { body } = await second.post(financials(companies[5] as (typeof companies)[number]))
      expect(body.errors).toBeUndefined()
      expect(demo.calls()).toHaveLength(2)
    })

    it('a replica that starts after a circuit opened keeps it open: no call, and its /metrics shows it', async () => {
      const [first] = await replicas(1)
      demo.inject({ path: /\/financials$/, status: 503 })
      await roundRobin([first as Client], companies.slice(0, 5))
      expect(await openOn(first as Client)).toBe(1)

      demo.reset()
      demo.inject({ path: /\/financials$/, status: 503 })
      const [late] = await replicas(1)
      await shownOpen(late as Client)
      const bodies = await roundRobin([late as Client], companies.slice(5, 8))
      expect(bodies.map((body) => body.errors?.[0]?.extensions)).toEqual([
        refused,
        refused,
        refused,
      ])
      expect(demo.calls()).toEqual([])
    })

    it('failures over three replicas behind a load balancer are counted together: five in a row open the circuit on each', async () => {
      const three = await replicas(3)
      demo.inject({ path: /\/financials$/, status: 503 })
      await roundRobin(three, companies.slice(0, 5))
      expect(demo.calls()).toHaveLength(15)
      for (const replica of three) await shownOpen(replica)

      demo.reset()
      demo.inject({ path: /\/financials$/, status: 503 })
      const bodies = await roundRobin(three, companies.slice(5, 11))
      expect(bodies.map((body) => body.errors?.[0]?.extensions)).toEqual(Array(6).fill(refused))
      expect(demo.calls()).toEqual([])
    })

    it('an answer on any replica restarts the count: failures over replicas with an answer between them leave it closed', async () => {
      const two = await replicas(2)
      const [first, second] = two as [Client, Client]
      demo.inject({ path: /\/financials$/, status: 503 })
      await roundRobin(two, companies.slice(0, 4))
      demo.reset()
      expect((await first.post(financials(companies[4] as never))).body.errors).toBeUndefined()

      // The first's own reads, counted after its answer restarted the count: each calls the upstream.
      demo.inject({ path: /\/financials$/, status: 503 })
      for (const c of companies.slice(5, 9)) {
        const before = demo.calls().length
        const { body } = await first.post(financials(c))
        expect(body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR')
        expect(demo.calls().length).toBeGreaterThan(before)
      }
      expect([await openOn(first), await openOn(second)]).toEqual([0, 0])
    })

    it('reads that succeed cost no Redis command for their circuits', async () => {
      const two = await replicas(2)
      const admin = new Redis(url)
      onTestFinished(() => admin.disconnect())
      await commandsSince(admin)
      await roundRobin(two, companies.slice(0, 6))
      expect(demo.calls()).toHaveLength(6)
      expect(await commandsSince(admin)).toEqual({})
    })

    it('Redis down: each replica counts its own failures and opens its own circuit', async () => {
      const two = await replicas(2)
      const [first, second] = two as [Client, Client]
      await redis?.kill()
      onTestFinished(() => redis?.restart())
      demo.inject({ path: /\/financials$/, status: 503 })
      await roundRobin([first], companies.slice(0, 5))
      expect(demo.calls()).toHaveLength(15)
      expect([await openOn(first), await openOn(second)]).toEqual([1, 0])
    })
  },
)
