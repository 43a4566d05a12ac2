import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { metricsOf, sample } from '../support/metrics.js'
import { connectedWith, REDIS_SKIP_REASON, redisAvailable, startRedis } from '../support/redis.js'
import { type Client, startStack } from '../support/stack.js'

/**
 * Circuits shared by replicas on one Redis (src/upstream/circuit.ts): a circuit one replica
 * opens keeps the others from calling the endpoint, and the probe that closes it closes it on
 * every replica. Counts are the demo upstream's own log. The clock the circuits read (Date)
 * stands still: a circuit is half-open only once `later()` moves it.
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

describe.skipIf(!redisAvailable)(
  redisAvailable ? 'two replicas on one Redis' : `two replicas: skipped, ${REDIS_SKIP_REASON}`,
  async () => {
    const redis = redisAvailable ? await startRedis() : undefined
    afterAll(() => redis?.stop())
    beforeAll(() => {
      vi.useFakeTimers({ toFake: ['Date'] })
    })
    afterAll(() => {
      vi.useRealTimers()
    })

    it('the circuit one opens keeps the other from calling the endpoint; the probe that closes it closes it on both', async () => {
      const url = redis?.url ?? ''
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
  },
)
