import { Redis } from 'ioredis'
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { DEMO_TOKEN, DemoUpstream } from '../../src/demo-upstream/server.js'
import { ReadCache } from '../../src/upstream/cache/read-cache.js'
import { RemoteReads } from '../../src/upstream/cache/remote-reads.js'
import { UpstreamClient } from '../../src/upstream/client.js'
import { prepare } from '../../src/upstream/endpoint.js'
import { isCallersOwn, staleMayAnswer, type UpstreamError } from '../../src/upstream/errors.js'
import { FairShare } from '../../src/upstream/fair-share.js'
import { financials } from '../../src/upstream/resources/financials.js'
import { bigList, demoData, michiels } from '../support/fixtures.js'
import { connectedWith, REDIS_SKIP_REASON, redisAvailable, startRedis } from '../support/redis.js'
import { readScope, testTokenKey } from '../support/scope.js'
import { type Client, startStack } from '../support/stack.js'

/**
 * Reads in flight are shared between operations only once they have been sent (they hold a
 * connection and their turn): a caller whose read matches one still queued behind another
 * caller's backlog queues in its own turn instead of waiting out that backlog, and is not failed
 * by the other's deadline, budget or departure. A request that failed and waits to be sent
 * again is not sent: its joiners go back to their own lanes. In one process and across replicas.
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
    const cache = new ReadCache(
      {
        ttlSeconds: 300,
        staleSeconds: 60,
        maxBytes: 16 * 1024 * 1024,
        staleAllowed: staleMayAnswer,
        callersOwn: isCallersOwn,
      },
      'one process',
    )
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

describe.skipIf(!redisAvailable)(
  redisAvailable ? 'across replicas' : `across replicas: skipped, ${REDIS_SKIP_REASON}`,
  async () => {
    const stack = await startStack({
      cacheTtlSeconds: 300,
      upstreamToken: DEMO_TOKEN,
      upstreamMaxConnections: 2,
    })
    const redis = redisAvailable ? await startRedis() : undefined
    afterAll(() => redis?.stop())
    const { demo } = stack
    const ask = (replica: Client, caller: string, query: string) =>
      replica.post(query, {}, { authorization: `Bearer ${caller}` })

    it('a read queued on one replica behind a backlog does not hold another replica’s read of it', async () => {
      const [one, two] = await connectedWith(redis?.url ?? '', 4, () =>
        [1, 2].map(() => stack.replica({ redisUrl: redis?.url })),
      )
      if (!one || !two) throw new Error('no replicas')
      const members = bigList.members.slice(0, 60).map((m) => m.company)
      const target = members[40]
      if (!target) throw new Error('not enough members')
      const held = demo.hold(/\/financials$/)
      const backlog = ask(
        one,
        'heavy',
        `{ list(listId: ${bigList.id}) { companies(first: 60) { nodes { financials(first: 1) { totalCount } } } } }`,
      )
      // Two of the heavy caller's 60 statement reads are in flight on replica one; 58 wait there.
      await demo.waitForCalls(
        (calls) => calls.filter((c) => c.path.endsWith('/financials')).length === 2,
      )
      const targetPath = `/v1/companies/${target.country}/${target.companyNumber}/financials`
      const light = ask(
        two,
        'light',
        `{ company(country: ${target.country}, number: "${target.companyNumber}") { financials(first: 1) { totalCount } } }`,
      )
      // Sent by replica two in its own turn, while replica one's read of it still waits.
      await vi.waitFor(() => expect(demo.calls().map((c) => c.path)).toContain(targetPath), {
        timeout: 10_000,
      })
      held.release()
      const [heavy, answer] = await Promise.all([backlog, light])
      expect(heavy.body.errors).toBeUndefined()
      expect(answer.body.errors).toBeUndefined()
      const statements = demo
        .calls()
        .map((c) => c.path)
        .filter((p) => p.endsWith('/financials'))
      expect(statements.indexOf(targetPath)).toBe(2)
      // Replica one's read of it, once its turn came, found it made: one call in all.
      expect(statements.filter((p) => p === targetPath)).toHaveLength(1)
      expect(statements).toHaveLength(60)
    })

    it('a read joined through its lock whose request failed is sent again in the joiner’s turn', async () => {
      const [one, two] = await connectedWith(redis?.url ?? '', 4, () =>
        [1, 2].map(() => stack.replica({ redisUrl: redis?.url })),
      )
      if (!one || !two) throw new Error('no replicas')
      // What the test before read is in Redis: start from nothing.
      const direct = new Redis(redis?.url ?? '')
      await direct.flushall()
      direct.disconnect()
      const [target] = bigList.members.map((m) => m.company)
      if (!target) throw new Error('no members')
      const expect_ = vi.spyOn(RemoteReads.prototype, 'expect')
      onTestFinished(() => expect_.mockRestore())
      const waitedFor = () => expect_.mock.calls.length
      const targetPath = `/v1/companies/${target.country}/${target.companyNumber}/financials`
      demo.latencyMs = 30
      onTestFinished(() => {
        demo.latencyMs = 0
      })
      demo.inject({ path: targetPath, status: 503, times: 1 })
      const held = demo.hold(/\/financials$/)
      // Replica one's caller reads 150 statements, the target's first: its request is sent.
      const backlog = ask(
        one,
        'heavy',
        `{ list(listId: ${bigList.id}) { companies(first: 150) { nodes { financials(first: 1) { totalCount } } } } }`,
      )
      await demo.waitForCalls(
        (calls) => calls.filter((c) => c.path.endsWith('/financials')).length === 2,
      )
      expect(demo.calls().find((c) => c.path.endsWith('/financials'))?.path).toBe(targetPath)
      const light = ask(
        two,
        'light',
        `{ company(country: ${target.country}, number: "${target.companyNumber}") { financials(first: 1) { totalCount } } }`,
      )
      // Replica two waits for replica one's read of it, through its lock.
      await vi.waitFor(() => expect(waitedFor()).toBeGreaterThan(0), { timeout: 10_000 })
      held.release()
      const [heavy, answer] = await Promise.all([backlog, light])
      expect(heavy.body.errors).toBeUndefined()
      expect(answer.body.errors).toBeUndefined()
      const statements = demo
        .calls()
        .filter((c) => c.path.endsWith('/financials'))
        .map((c) => c.path)
      const [first, again] = statements.flatMap((p, i) => (p === targetPath ? [i] : []))
      expect(first).toBe(0)
      // Sent again in replica two's turn (or one's, if it came first): not after the backlog.
      expect(again).toBeLessThanOrEqual(6)
      expect(statements.filter((p) => p === targetPath)).toHaveLength(2)
    })
  },
)
