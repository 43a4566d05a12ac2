import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { metricsOf, sample } from '../support/metrics.js'
import { type Client, demoToken, startStack } from '../support/stack.js'

/**
 * The circuit of an endpoint and token (UPSTREAM_CIRCUIT_FAILURES, UPSTREAM_CIRCUIT_OPEN_SECONDS,
 * defaults 5 and 10): what an upstream that answers only 503 costs, what callers are answered
 * while the circuit is open, the probe that closes it, and what it leaves alone. Every count is
 * the demo upstream's own log. Each replica keeps its own circuits: no Redis here.
 *
 * The clock the circuits and the cache read (Date) stands still here: a circuit is half-open only
 * once `later()` moves it past the open time, however slow the machine runs. Each test has a
 * gateway of its own (its own circuits, retry budget and cache).
 */

const FAILURES = 5
const OPEN_MS = 10_000
const OTHER_TOKEN = 'another-token'
const stack = await startStack({}, { tokens: [DEMO_TOKEN, OTHER_TOKEN] })
const { demo } = stack
const companies = demo.data.companies.slice(0, 25)
const [company] = companies
if (!company) throw new Error('no company')
const FINANCIALS = '/v1/companies/{countryCode}/{companyNumber}/financials'
const openSeries = (endpoint: string) => `gateway_upstream_circuits_open{endpoint="${endpoint}"}`

const financials = (c: (typeof companies)[number]) =>
  `{ company(country: ${c.country}, number: "${c.companyNumber}") { financials(first: 1) { totalCount } } }`

beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
})
afterAll(() => {
  vi.useRealTimers()
})
const later = (ms: number) => vi.setSystemTime(Date.now() + ms)

/** One read after the other; what each answered and how many upstream calls each made. */
async function readEach(gateway: Client, queries: string[], headers = demoToken) {
  const reads = []
  for (const query of queries) {
    const before = demo.calls().length
    const { body } = await gateway.post(query, {}, headers)
    reads.push({ body, calls: demo.calls().length - before })
  }
  return reads
}

/** A gateway whose circuit of the financials endpoint with the demo token is open. */
async function opened(config = {}) {
  const gateway = stack.replica(config)
  demo.inject({ path: /\/financials$/, status: 503 })
  const reads = await readEach(gateway, companies.slice(0, FAILURES).map(financials))
  expect(reads.map((r) => r.calls)).toEqual(Array(FAILURES).fill(3))
  demo.reset()
  return gateway
}

describe('an upstream that answers only 503', () => {
  it('25 reads with stale entries: five reads try it (3 attempts each), the other 20 are answered stale without a call', async () => {
    const gateway = stack.replica({ cacheTtlSeconds: 1, cacheStaleSeconds: 600 })
    const warm = await readEach(gateway, companies.map(financials))
    expect(warm.map((r) => r.body.errors)).toEqual(companies.map(() => undefined))
    later(1100)
    demo.reset()
    demo.inject({ path: /./, status: 503 })

    const reads = await readEach(gateway, companies.map(financials))
    expect(reads.map((r) => r.calls)).toEqual([...Array(5).fill(3), ...Array(20).fill(0)])
    expect(demo.calls()).toHaveLength(15)
    for (const [i, read] of reads.entries()) {
      expect(read.body.errors).toBeUndefined()
      expect(read.body.data).toEqual(warm[i]?.body.data)
      expect(read.body.extensions?.cache).toEqual({ stale: true, staleReads: 1 })
    }
  })

  it('25 reads with nothing cached: five reads try it, the other 20 are refused at once, retryable; from the read that opens it, each says when it is tried again', async () => {
    const gateway = stack.replica()
    demo.inject({ path: /./, status: 503 })

    const reads = await readEach(gateway, companies.map(financials))
    expect(reads.map((r) => r.calls)).toEqual([...Array(5).fill(3), ...Array(20).fill(0)])
    expect(demo.calls()).toHaveLength(15)
    for (const [i, read] of reads.entries()) {
      const c = companies[i]
      // The company stays (nothing says it is unknown); its financials are null with the reason.
      expect(read.body.data).toEqual({ company: { financials: null } })
      expect(read.body.errors?.map((e) => [e.path, e.extensions])).toEqual([
        [
          ['company', 'financials'],
          i < FAILURES - 1
            ? { code: 'UPSTREAM_ERROR', retryable: true }
            : { code: 'UPSTREAM_ERROR', retryable: true, retryAfterSeconds: OPEN_MS / 1000 },
        ],
      ])
      if (i >= 5)
        expect(read.body.errors?.[0]?.message, c?.companyNumber).toMatch(/circuit is open/)
    }
  })
})

describe('half-open', () => {
  it('after the open time one request goes through; a 503 opens the circuit again at once, without a retry', async () => {
    const gateway = await opened()
    demo.inject({ path: /./, status: 503 })
    later(OPEN_MS)
    const [probe, next] = await readEach(gateway, [financials(company), financials(company)])
    expect(probe?.calls).toBe(1)
    expect(probe?.body.errors?.[0]?.extensions).toEqual({
      code: 'UPSTREAM_ERROR',
      retryable: true,
      retryAfterSeconds: OPEN_MS / 1000,
    })
    expect(next?.calls).toBe(0)
    expect(next?.body.errors?.[0]?.extensions?.retryAfterSeconds).toBe(OPEN_MS / 1000)
  })

  it('its probe alone is sent (others are refused while it is under way); its answer closes the circuit', async () => {
    const gateway = await opened()
    expect(sample(await metricsOf(gateway), openSeries(FINANCIALS))).toBe(1)
    later(OPEN_MS)
    const held = demo.hold(/\/financials$/)
    const probe = gateway.post(financials(company))
    await demo.waitForCalls((calls) => calls.length === 1)
    const during = await gateway.post(financials(company))
    expect(during.body.errors?.[0]?.extensions).toEqual({
      code: 'UPSTREAM_ERROR',
      retryable: true,
      retryAfterSeconds: 1,
    })
    expect(demo.calls()).toHaveLength(1)
    held.release()
    expect((await probe).body.errors).toBeUndefined()

    // Closed: reads go to the upstream again, and /metrics shows nothing open.
    const after = await readEach(gateway, companies.slice(1, 4).map(financials))
    expect(after.map((r) => [r.calls, r.body.errors])).toEqual(after.map(() => [1, undefined]))
    expect(sample(await metricsOf(gateway), openSeries(FINANCIALS))).toBe(0)
  })

  it('reads that arrive together when it is half-open: one probe is sent, the others are refused at once', async () => {
    const gateway = await opened()
    later(OPEN_MS)
    const held = demo.hold(/\/financials$/)
    let settled = 0
    const reads = companies.slice(0, 5).map((c) =>
      gateway.post(financials(c)).finally(() => {
        settled++
      }),
    )
    // Four are answered while the probe is still held upstream (it reaches it after its turn).
    await vi.waitFor(() => {
      expect(settled).toBe(4)
      expect(demo.calls()).toHaveLength(1)
    })
    held.release()
    const answers = await Promise.all(reads)
    expect(answers.filter((a) => a.body.errors === undefined)).toHaveLength(1)
    expect(answers.flatMap((a) => a.body.errors ?? []).map((e) => e.extensions)).toEqual(
      Array(4).fill({ code: 'UPSTREAM_ERROR', retryable: true, retryAfterSeconds: 1 }),
    )
    expect(demo.calls()).toHaveLength(1)
  })

  it('a probe whose operation ends first says nothing: the next request probes', async () => {
    const gateway = await opened()
    later(OPEN_MS)
    const held = demo.hold(/\/financials$/)
    const client = new AbortController()
    const probe = gateway
      .request({ body: { query: financials(company) }, headers: demoToken, signal: client.signal })
      .catch(() => undefined)
    await demo.waitForCalls((calls) => calls.length === 1)
    client.abort()
    await probe
    held.release()
    // Refused (no call) until the gateway has seen its probe end, then let through.
    await vi.waitFor(async () => {
      const { body } = await gateway.post(financials(company))
      expect(body.errors).toBeUndefined()
    })
    expect(demo.calls()).toHaveLength(2)
  })
})

describe('per endpoint and token', () => {
  it('leaves another endpoint, and the same endpoint with another token, alone', async () => {
    const gateway = await opened()
    const lookalikes = `{ company(country: ${company.country}, number: "${company.companyNumber}") { lookalikes(first: 1) { totalCount } } }`
    const other = { authorization: `Bearer ${OTHER_TOKEN}` }
    const [ownLookalikes] = await readEach(gateway, [lookalikes])
    const [otherFinancials] = await readEach(gateway, [financials(company)], other)
    const [ownFinancials] = await readEach(gateway, [financials(company)])
    expect([ownLookalikes, otherFinancials].map((r) => [r?.calls, r?.body.errors])).toEqual([
      [1, undefined],
      [1, undefined],
    ])
    expect(ownFinancials?.calls).toBe(0)
    expect(demo.calls().map((c) => c.token)).toEqual([DEMO_TOKEN, OTHER_TOKEN])
    const metrics = await metricsOf(gateway)
    expect(sample(metrics, openSeries(FINANCIALS))).toBe(1)
    expect(
      sample(metrics, openSeries('/v1/companies/{countryCode}/{companyNumber}/lookalikes')),
    ).toBe(0)
  })

  it('UPSTREAM_CIRCUIT_FAILURES=0: no circuit, every read tries the upstream', async () => {
    const gateway = stack.replica({ upstreamCircuitFailures: 0 })
    demo.inject({ path: /./, status: 503 })
    const reads = await readEach(gateway, companies.slice(0, 8).map(financials))
    expect(reads.every((r) => r.calls > 0)).toBe(true)
    expect(await metricsOf(gateway)).not.toContain('gateway_upstream_circuits_open')
  })
})
