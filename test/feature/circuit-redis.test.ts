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
import { type Client, demoToken, startStack } from '../support/stack.js'

/**
 * Circuits shared by replicas on one Redis (src/upstream/circuit.ts): failures are counted over
 * every replica, a circuit one replica opens keeps the others from calling the endpoint (those
 * that start later too), one probe goes out over every replica, and the probe that closes it
 * closes it on every replica (a probe that fails once it is closed counts as a failure). Counts are the
 * demo upstream's own log. The clock the circuits read (Date) stands still: a circuit is
 * half-open only once `later()` moves it.
 */

const stack = await startStack()
const { demo } = stack
const companies = demo.data.companies.slice(0, 12)
const FINANCIALS =
  'gateway_upstream_circuits_open{endpoint="/v1/companies/{countryCode}/{companyNumber}/financials"}'
type Company = (typeof companies)[number]
const financials = (c: Company) =>
  `{ company(country: ${c.country}, number: "${c.companyNumber}") { financials(first: 1) { totalCount } } }`
const at = (i: number) => companies[i] as Company
/** The financials of `c` alone. */
const financialsOf = (c: Company) => new RegExp(`/${c.companyNumber}/financials$`)
const later = (ms: number) => vi.setSystemTime(Date.now() + ms)
const openOn = async (replica: Client) => sample(await metricsOf(replica), FINANCIALS)
const shown = (replica: Client, open: number) =>
  vi.waitFor(async () => expect(await openOn(replica)).toBe(open), { timeout: 10_000 })
const shownOpen = (replica: Client) => shown(replica, 1)
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
    /** Waits until `count` replicas listen on gw:circuit: nothing told is missed. */
    const listening = async (count: number) => {
      const listener = new Redis(url)
      try {
        await vi.waitFor(
          async () =>
            expect(await listener.pubsub('NUMSUB', 'gw:circuit')).toEqual(['gw:circuit', count]),
          { timeout: 10_000 },
        )
      } finally {
        listener.disconnect()
      }
    }
    /** Replicas the test made so far. */
    let made = 0
    /** Replicas of one test, listening, closed after it. */
    const replicas = async (count: number) => {
      const started = await connectedWith(url, 2 * count, () =>
        Array.from({ length: count }, () =>
          stack.replica({ redisUrl: url, upstreamCircuitOpenSeconds: 60 }),
        ),
      )
      onTestFinished(async () => {
        await Promise.all(started.map((replica) => replica.close()))
      })
      made += count
      await listening(made)
      return started
    }
    afterAll(() => redis?.stop())
    // The circuits a test leaves open in Redis are not the next test's.
    beforeEach(async () => {
      made = 0
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
      onTestFinished(async () => {
        await Promise.all([first.close(), second.close()])
      })
      // Both listen before anything is told.
      await listening(2)

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

    it('half-open over four replicas behind a load balancer, the upstream still failing: one probe reaches it, the others refuse, and all open again', async () => {
      const four = await replicas(4)
      demo.inject({ path: /\/financials$/, status: 503 })
      await roundRobin(four, companies.slice(0, 5))
      expect(demo.calls()).toHaveLength(15)
      for (const replica of four) await shownOpen(replica)

      demo.reset()
      demo.inject({ path: /\/financials$/, status: 503 })
      later(60_000)
      // A burst as the open time ends, one read to each replica.
      const bodies = await Promise.all(
        four.map(async (replica, i) => (await replica.post(financials(at(5 + i)))).body),
      )
      expect(bodies.map((body) => body.errors?.[0]?.extensions)).toEqual(Array(4).fill(refused))
      expect(demo.calls()).toHaveLength(1)
      // The probe's failure is told: every replica is open for its whole open time again.
      for (const replica of four) {
        await vi.waitFor(
          async () => {
            const { body } = await replica.post(financials(at(9)))
            expect(body.errors?.[0]?.extensions?.retryAfterSeconds).toBe(60)
          },
          { timeout: 10_000 },
        )
      }
      expect(demo.calls()).toHaveLength(1)
    })

    it('a probe that fails after the circuit closed counts as one failure: it stays closed on every replica', async () => {
      const [first, second] = (await replicas(2)) as [Client, Client]
      // A read of the first's, sent while the endpoint answered, is held until the circuit is half-open.
      const held = demo.hold(financialsOf(at(0)))
      const early = first.post(financials(at(0)))
      await demo.waitForCalls((calls) => calls.length === 1)
      demo.inject({ path: /\/financials$/, status: 500 })
      await roundRobin([second], companies.slice(1, 6))
      expect(demo.calls()).toHaveLength(6)
      await shownOpen(first)

      // The second's probe is under way (it fails) when the first's early read is answered.
      later(60_000)
      const heldProbe = demo.hold(financialsOf(at(6)))
      const probe = second.post(financials(at(6)))
      await demo.waitForCalls((calls) => calls.length === 7)
      held.release()
      expect((await early).body.errors).toBeUndefined()
      await shown(second, 0)
      heldProbe.release()
      expect((await probe).body.errors?.[0]?.extensions).toEqual({
        code: 'UPSTREAM_ERROR',
        retryable: true,
      })

      // One failure after an answer, far from five: both replicas read the healthy upstream.
      demo.reset()
      for (const [i, replica] of [first, second].entries()) {
        expect((await replica.post(financials(at(7 + i)))).body.errors).toBeUndefined()
      }
      expect(demo.calls()).toHaveLength(2)
      expect([await openOn(first), await openOn(second)]).toEqual([0, 0])
    })

    it("a probe whose operation ends first gives its claim back: its replica's next request probes, and its answer closes the circuit on both", async () => {
      const [first, second] = (await replicas(2)) as [Client, Client]
      demo.inject({ path: /\/financials$/, status: 503 })
      await roundRobin([first, second], companies.slice(0, 5))
      for (const replica of [first, second]) await shownOpen(replica)

      demo.reset()
      later(60_000)
      const held = demo.hold(financialsOf(at(5)))
      const client = new AbortController()
      const probe = first
        .request({ body: { query: financials(at(5)) }, headers: demoToken, signal: client.signal })
        .catch(() => undefined)
      await demo.waitForCalls((calls) => calls.length === 1)
      // The probe is the first's: the second refuses.
      expect((await second.post(financials(at(6)))).body.errors?.[0]?.extensions).toEqual(refused)
      client.abort()
      await probe
      held.release()
      await vi.waitFor(
        async () => expect((await first.post(financials(at(7)))).body.errors).toBeUndefined(),
        { timeout: 10_000 },
      )
      await shown(second, 0)
      expect((await second.post(financials(at(8)))).body.errors).toBeUndefined()
      expect(demo.calls()).toHaveLength(3)
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
