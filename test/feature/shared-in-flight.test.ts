import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { DemoUpstream } from '../../src/demo-upstream/server.js'
import { FairShare } from '../../src/upstream/admission.js'
import { ReadCache } from '../../src/upstream/cache.js'
import { UpstreamClient } from '../../src/upstream/client.js'
import { prepare } from '../../src/upstream/endpoint.js'
import type { UpstreamError } from '../../src/upstream/errors.js'
import { financials } from '../../src/upstream/resources/financials.js'
import { demoData, michiels } from '../support/fixtures.js'
import { readScope, testTokenKey } from '../support/scope.js'

/**
 * Reads in flight are shared between operations only once they have been sent (they hold a
 * connection and their turn): a caller whose read matches one still queued behind another
 * caller's backlog queues in its own turn instead of waiting out that backlog, and is not failed
 * by the other's deadline, budget or departure. A request that failed and waits to be sent
 * again is not sent: its joiners go back to their own lanes. In one process (across replicas:
 * redis-in-flight.test.ts).
 */

const company = michiels
const statement = (offset: number) => prepare(financials, { company, limit: 1, offset })
const path = `/v1/companies/${company.country}/${company.companyNumber}/financials`
const outcome = (read: Promise<unknown>) =>
  read.then(
    () => 'ok',
    (e: UpstreamError) => (e.cancelled ? 'cancelled' : e.code),
  )

/** Until the test ends: `callers(n)` resolves once reads of n callers have queued for a turn. */
function watchLanes() {
  const enqueue = vi.spyOn(FairShare.prototype, 'enqueue')
  onTestFinished(() => enqueue.mockRestore())
  const lanes = () => new Set(enqueue.mock.calls.map(([ticket]) => ticket.lane)).size
  return { callers: (n: number) => vi.waitFor(() => expect(lanes()).toBe(n), { timeout: 10_000 }) }
}

describe('in one process', () => {
  const demo = new DemoUpstream({ data: demoData })
  const clients: UpstreamClient[] = []
  const clientWith = (maxConnections: number, timeoutMs = 10_000) => {
    const cache = new ReadCache({ ttlSeconds: 300, staleSeconds: 60, maxBytes: 16 * 1024 * 1024 })
    const client = new UpstreamClient({
      baseUrl: demo.url,
      languageHeader: 'Accept-Language',
      timeoutMs,
      maxConnections,
      maxResponseBytes: 1024 * 1024,
      retry: { maxRetries: 2, baseDelayMs: 200, maxDelayMs: 400 },
      tokenKey: testTokenKey,
      cache,
    })
    clients.push(client)
    return client
  }
  beforeAll(() => demo.start())
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
    await demo.stop()
  })
  beforeEach(() => demo.reset())
  const offsets = () => demo.calls().map((c) => Number(c.query.offset))

  it('a read matching one queued behind another caller’s 100-read backlog is sent in its own turn', async () => {
    const client = clientWith(2)
    const lanes = watchLanes()
    const held = demo.hold(/^\/v1\//)
    const backlog = Array.from({ length: 100 }, (_, i) =>
      outcome(client.send(statement(i), readScope({ fairnessKey: 'heavy' }))),
    )
    await demo.waitForCalls((calls) => calls.length === 2)
    const light = readScope({ fairnessKey: 'light' })
    const read = outcome(client.send(statement(50), light))
    await lanes.callers(2)
    held.release()
    expect(await read).toBe('ok')
    expect(new Set(await Promise.all(backlog))).toEqual(new Set(['ok']))
    // Two in flight when it came, then its turn: third or fourth, not after the 50 before it.
    expect(offsets().indexOf(50)).toBeLessThanOrEqual(3)
    // The heavy caller's read of it, still queued then, joined it once it was sent.
    expect(offsets().filter((offset) => offset === 50)).toHaveLength(1)
    expect(light.results).toEqual(['miss'])
  })

  it('is not failed by the deadline of another caller’s read of it that is still queued', async () => {
    const client = clientWith(1)
    const held = demo.hold(/^\/v1\//)
    const first = client.send(statement(0), readScope({ fairnessKey: 'hurried' }))
    await demo.waitForCalls((calls) => calls.length === 1)
    const hurried = readScope({ fairnessKey: 'hurried', deadline: Date.now() + 100 })
    const late = outcome(client.send(statement(1), hurried))
    const patient = outcome(client.send(statement(1), readScope({ fairnessKey: 'patient' })))
    expect(await late).toBe('UPSTREAM_TIMEOUT')
    held.release()
    await first
    expect(await patient).toBe('ok')
    expect(offsets()).toEqual([0, 1])
  })

  it('a joined read whose request failed is sent again in the joiner’s turn, not behind the maker’s backlog', async () => {
    // UPSTREAM_TIMEOUT_MS 1 s: the maker's backlog (100 reads, 2 connections, 30 ms each) takes
    // longer, so a retry queued behind it fails with the maker's deadline.
    const client = clientWith(2, 1000)
    demo.latencyMs = 30
    onTestFinished(() => {
      demo.latencyMs = 0
    })
    demo.inject({ path, status: 503, times: 1 })
    const held = demo.hold(path)
    const heavy = readScope({ fairnessKey: 'heavy' })
    const made = outcome(client.send(statement(0), heavy))
    await demo.waitForCalls((calls) => calls.length === 1)
    const backlog = Array.from({ length: 100 }, (_, i) =>
      outcome(client.send(statement(i + 1), heavy)),
    )
    const light = readScope({ fairnessKey: 'light' })
    const read = outcome(client.send(statement(0), light))
    // Joined: no request of its own yet.
    await new Promise((resolve) => setImmediate(resolve))
    expect(demo.calls()).toHaveLength(1)
    held.release()
    const [joined] = await Promise.all([read, made, ...backlog])
    expect(joined).toBe('ok')
    // The 503, then, two connections later at most, the read again: not after the backlog.
    const again = offsets().indexOf(0, 1)
    expect(again).toBeGreaterThan(0)
    expect(again).toBeLessThanOrEqual(5)
    expect(demo.calls()[0]?.status).toBe(503)
  })

  describe('a read joined once sent, failed for a reason of its maker’s, is made again by the joiner', () => {
    /** The maker's read is sent and held; another caller joins it; `fail` ends the maker's. */
    async function joined(maker: ReturnType<typeof readScope>, fail: () => void) {
      const client = clientWith(2)
      const held = demo.hold(path)
      const made = outcome(client.send(statement(0), maker))
      await demo.waitForCalls((calls) => calls.length === 1)
      const joiner = readScope({ fairnessKey: 'joiner' })
      const joinedRead = outcome(client.send(statement(0), joiner))
      // It joined: no request of its own (a joiner waits in no lane).
      await new Promise((resolve) => setImmediate(resolve))
      expect(demo.calls()).toHaveLength(1)
      fail()
      held.release()
      return { made: await made, joined: await joinedRead, joiner }
    }

    it('its budget: a retry the maker cannot afford', async () => {
      demo.inject({ path, status: 503, times: 1 })
      const result = await joined(readScope({ fairnessKey: 'maker', budget: 1 }), () => {})
      expect([result.made, result.joined]).toEqual(['UPSTREAM_ERROR', 'ok'])
      expect(demo.calls().map((c) => c.status)).toEqual([503, 200])
    })

    it('its deadline: a retry that would end past it', async () => {
      demo.inject({ path, status: 503, times: 1 })
      const maker = readScope({ fairnessKey: 'maker', deadline: Date.now() + 50 })
      const result = await joined(maker, () => {})
      expect([result.made, result.joined]).toEqual(['UPSTREAM_ERROR', 'ok'])
      expect(demo.calls().map((c) => c.status)).toEqual([503, 200])
    })

    it('its departure: the operation ended', async () => {
      const ended = new AbortController()
      const result = await joined(readScope({ fairnessKey: 'maker', signal: ended.signal }), () =>
        ended.abort(),
      )
      expect([result.made, result.joined]).toEqual(['cancelled', 'ok'])
      expect(result.joiner.results).toEqual(['miss'])
    })
  })
})
