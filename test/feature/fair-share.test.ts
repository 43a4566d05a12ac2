import { createHash, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, fetch as undiciFetch } from 'undici'
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { DEMO_TOKEN, DemoUpstream } from '../../src/demo-upstream/server.js'
import { createLogger } from '../../src/observability/logger.js'
import { FairShare } from '../../src/upstream/admission.js'
import { UpstreamClient } from '../../src/upstream/client.js'
import { prepare } from '../../src/upstream/endpoint.js'
import type { UpstreamError } from '../../src/upstream/errors.js'
import { financials } from '../../src/upstream/resources/financials.js'
import { listDetails } from '../../src/upstream/resources/lists.js'
import { bigList, demoData, michiels } from '../support/fixtures.js'
import { logSink } from '../support/log-sink.js'
import { readScope, testTokenKey } from '../support/scope.js'
import { serve } from '../support/serve.js'
import { startStack } from '../support/stack.js'

/**
 * How the upstream client shares its connections between operations: round robin between
 * callers, a read's timeout counted from when it is sent, waiting bounded by the operation's
 * deadline, every request drawn from the operation's budget, nothing sent once it has ended.
 */

/**
 * Watches the reads that ask the upstream client for a connection, until the test ends:
 * `twoCallers()` resolves once reads of two callers (fairness keys) have asked.
 */
function watchQueue() {
  const enqueue = vi.spyOn(FairShare.prototype, 'enqueue')
  onTestFinished(() => enqueue.mockRestore())
  const keys = () => new Set(enqueue.mock.calls.map(([ticket]) => ticket.lane)).size
  return { twoCallers: () => vi.waitFor(() => expect(keys()).toBe(2), { timeout: 10_000 }) }
}

describe('the upstream client in an operation’s scope', () => {
  const demo = new DemoUpstream({ data: demoData })
  const company = michiels
  const log = logSink()
  const clients: UpstreamClient[] = []
  const clientWith = (maxConnections: number, timeoutMs = 2000) => {
    const client = new UpstreamClient({
      baseUrl: demo.url,
      languageHeader: 'Accept-Language',
      timeoutMs,
      maxConnections,
      maxResponseBytes: 1024 * 1024,
      retry: { maxRetries: 2, baseDelayMs: 200, maxDelayMs: 400 },
      logger: createLogger('debug', log.stream),
      tokenKey: testTokenKey,
    })
    clients.push(client)
    return client
  }
  beforeAll(() => demo.start())
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
    await demo.stop()
  })
  beforeEach(() => {
    demo.reset()
    log.clear()
  })

  const scope = readScope
  const statements = prepare(financials, { company, limit: 2, offset: 0 })
  const path = `/v1/companies/${company.country}/${company.companyNumber}/financials`
  const outcome = (read: Promise<unknown>) =>
    read.then(
      () => 'ok',
      (e: UpstreamError) => (e.cancelled ? 'cancelled' : e.code),
    )

  it('shares connections round robin: one read of a second caller overtakes a 20-read backlog', async () => {
    const client = clientWith(2)
    const queue = watchQueue()
    const held = demo.hold(/^\/v1\//)
    const heavy = Array.from({ length: 20 }, (_, i) =>
      client.send(
        prepare(financials, { company, limit: 1, offset: i }),
        scope({ fairnessKey: 'heavy' }),
      ),
    )
    await demo.waitForCalls((calls) => calls.length === 2)
    const light = client.send(
      prepare(listDetails, { listId: bigList.id }),
      scope({ fairnessKey: 'light' }),
    )
    await queue.twoCallers()
    held.release()
    await Promise.all([...heavy, light])
    const order = demo.calls().map((c) => c.path)
    // Two in flight when it came, then its turn: third or fourth, not twenty-first.
    expect(order.indexOf(`/v1/lists/${bigList.id}`)).toBeLessThanOrEqual(3)
  })

  it('counts a read’s timeout from when it is sent, not from when it was queued', async () => {
    // One connection, four reads of 400 ms each: the last waits 1,200 ms, over its 1,000 ms
    // timeout, but is answered 400 ms after it is sent.
    const client = clientWith(1, 1000)
    demo.latencyMs = 400
    const reads = Array.from({ length: 4 }, (_, i) =>
      outcome(client.send(prepare(financials, { company, limit: 1, offset: i }), scope())),
    )
    expect(await Promise.all(reads)).toEqual(['ok', 'ok', 'ok', 'ok'])
  })

  it('bounds the wait for a connection by the operation’s deadline: UPSTREAM_TIMEOUT, nothing sent', async () => {
    const client = clientWith(1)
    const held = demo.hold(path)
    const first = client.send(statements, scope())
    await demo.waitForCalls((calls) => calls.length === 1)
    const late = await outcome(
      client.send(
        prepare(listDetails, { listId: bigList.id }),
        scope({ deadline: Date.now() + 50 }),
      ),
    )
    expect(late).toBe('UPSTREAM_TIMEOUT')
    held.release()
    await first
    expect(demo.calls().map((c) => c.path)).toEqual([path])
  })

  it('draws every request from the budget, retries included, and sends none past it', async () => {
    const client = clientWith(4)
    demo.inject({ path, status: 503, times: 1 })
    const ample = scope({ budget: 5 })
    expect(await outcome(client.send(statements, ample))).toBe('ok')
    expect([ample.spent, demo.calls().length]).toEqual([2, 2])

    demo.reset()
    const spent = scope({ budget: 0 })
    expect(await outcome(client.send(statements, spent))).toBe('QUERY_TOO_COSTLY')
    expect(demo.calls()).toEqual([])

    // The retry the budget refuses: the read fails with what the upstream said.
    demo.inject({ path, status: 503 })
    const one = scope({ budget: 1 })
    expect(await outcome(client.send(statements, one))).toBe('UPSTREAM_ERROR')
    expect(demo.calls()).toHaveLength(1)
  })

  it('sends nothing once the operation ended: queued reads dropped, a read in flight aborted, no retry', async () => {
    const client = clientWith(1)
    const ended = new AbortController()
    const held = demo.hold(path)
    const inFlight = outcome(client.send(statements, scope({ signal: ended.signal })))
    await demo.waitForCalls((calls) => calls.length === 1)
    const queued = outcome(
      client.send(prepare(listDetails, { listId: bigList.id }), scope({ signal: ended.signal })),
    )
    ended.abort()
    expect(await inFlight).toBe('cancelled')
    expect(await queued).toBe('cancelled')
    held.release()

    demo.reset()
    demo.inject({ path, status: 503 })
    const backingOff = new AbortController()
    const retrying = outcome(client.send(statements, scope({ signal: backingOff.signal })))
    await demo.waitForCalls((calls) => calls.some((c) => c.status === 503))
    backingOff.abort()
    expect(await retrying).toBe('cancelled')
    expect(demo.calls()).toHaveLength(1)
    expect(log.text()).not.toMatch(/"level":(40|50)/)
  })

  it('logs one line per failed read: warn with code, endpoint and status; 404 at info', async () => {
    const client = clientWith(2)
    demo.inject({ path, status: 503 })
    await outcome(client.send(statements, scope()))
    const lines = log.lines()
    expect(lines.filter((l) => l.msg === 'retrying upstream read').map((l) => l.level)).toEqual([
      20, 20,
    ])
    expect(lines.filter((l) => l.msg === 'upstream read failed')).toEqual([
      expect.objectContaining({
        level: 40,
        code: 'UPSTREAM_ERROR',
        status: 503,
        attempts: 3,
        endpoint: 'GET /v1/companies/{countryCode}/{companyNumber}/financials',
      }),
    ])
    log.clear()
    await outcome(client.send(prepare(listDetails, { listId: 4242 }), scope()))
    expect(log.lines().filter((l) => l.msg === 'upstream read failed')).toEqual([
      expect.objectContaining({ level: 30, code: 'NOT_FOUND', status: 404 }),
    ])
  })

  it('logs, at debug level, one line per upstream request with its request id', async () => {
    const client = clientWith(2)
    demo.inject({ path, status: 503, times: 1 })
    await client.send(statements, scope({ requestId: 'req-42' }))
    expect(log.lines().filter((l) => l.msg === 'upstream call')).toEqual([
      expect.objectContaining({
        level: 20,
        endpoint: '/v1/companies/{countryCode}/{companyNumber}/financials',
        status: 503,
        attempt: 1,
        cache: 'off',
        requestId: 'req-42',
      }),
      expect.objectContaining({ level: 20, status: 200, attempt: 2, requestId: 'req-42' }),
    ])
    expect(demo.calls().map((c) => c.requestId)).toEqual(['req-42', 'req-42'])
  })
})

describe('through the gateway without a service token: a caller is its token once the upstream took it', async () => {
  // Identical operations would share their reads through the cache: this is about queueing.
  // The upstream knows 'heavy' and 'light' only: any other token it refuses (401).
  const stack = await startStack({ upstreamMaxConnections: 2 }, { tokens: ['heavy', 'light'] })
  const upstream = stack.demo
  // Over a socket, as callers come: one address for all (yoga.fetch has none).
  const address = `${(await serve(stack.gateway.yoga)).url}/graphql`
  const ask = (token: string, query: string) =>
    undiciFetch(address, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query }),
    }).then((r) => r.json() as Promise<{ errors?: { extensions?: { code?: string } }[] }>)
  // Each known caller has been answered once before: the upstream has accepted its token.
  beforeAll(async () => {
    for (const token of ['heavy', 'light']) await ask(token, '{ lists(first: 1) { totalCount } }')
  })
  beforeEach(() => upstream.reset())

  it('a light caller’s one read overtakes a heavy caller’s eight queries queued before it', async () => {
    const queue = watchQueue()
    const held = upstream.hold(/^\/v1\//)
    const heavy = Array.from({ length: 8 }, () =>
      ask(
        'heavy',
        `{ list(listId: ${bigList.id}) { companies(first: 5) { nodes { financials(first: 1) { totalCount } } } } }`,
      ),
    )
    // Two of the heavy caller's reads take both connections; six more wait.
    await upstream.waitForCalls((calls) => calls.length === 2)
    const light = ask('light', '{ lists(first: 1) { totalCount } }')
    await queue.twoCallers()
    held.release()
    const answers = await Promise.all([...heavy, light])
    expect(answers.map((a) => a.errors)).toEqual(answers.map(() => undefined))
    const order = upstream.calls().map((c) => c.token)
    expect(order.indexOf('light')).toBeLessThanOrEqual(3)
  })

  it('30 operations with 30 made-up tokens share their address’s one share, as 30 with one token do', async () => {
    const enqueue = vi.spyOn(FairShare.prototype, 'enqueue')
    onTestFinished(() => enqueue.mockRestore())
    /** 30 operations sent with `tokenOf()`'s tokens, then the light caller's one read. */
    const run = async (tokenOf: () => string) => {
      upstream.reset()
      enqueue.mockClear()
      const held = upstream.hold(/^\/v1\//)
      const heavy = Array.from({ length: 30 }, () =>
        ask(tokenOf(), `{ list(listId: ${bigList.id}) { name } }`),
      )
      // Each asks for its one read: two are sent, 28 wait.
      await vi.waitFor(() => expect(enqueue).toHaveBeenCalledTimes(30), { timeout: 10_000 })
      const light = ask('light', '{ lists(first: 1) { totalCount } }')
      await vi.waitFor(() => expect(enqueue).toHaveBeenCalledTimes(31), { timeout: 10_000 })
      const lanes = new Set(enqueue.mock.calls.map(([ticket]) => ticket.lane)).size
      held.release()
      const answers = await Promise.all([...heavy, light])
      expect(answers.at(-1)?.errors).toBeUndefined()
      const codes = answers.slice(0, 30).map((a) => a.errors?.[0]?.extensions?.code ?? 'ok')
      const lightAt = upstream.calls().findIndex((c) => c.path === '/v1/lists')
      return { lanes, codes: new Set(codes), lightAt }
    }
    const one = await run(() => 'heavy')
    const madeUp = await run(() => randomUUID())
    expect(one.codes).toEqual(new Set(['ok']))
    expect(madeUp.codes).toEqual(new Set(['UNAUTHENTICATED']))
    // Two queues either way: the 30 operations' one and the light caller's. With a share per
    // made-up token there were 31, and the light read came 31st.
    expect([one.lanes, madeUp.lanes]).toEqual([2, 2])
    expect(one.lightAt).toBeLessThanOrEqual(3)
    expect(madeUp.lightAt).toBeLessThanOrEqual(3)
  })
})

describe('through the gateway with a service token and no verification: callers are told apart by address only', async () => {
  const stack = await startStack({ upstreamToken: DEMO_TOKEN, upstreamMaxConnections: 2 })
  const upstream = stack.demo
  const address = `${(await serve(stack.gateway.yoga)).url}/graphql`
  // Linux answers all of 127.0.0.0/8 on loopback: a connection from 127.0.0.2 is another address.
  const here = new Agent()
  const elsewhere = new Agent({ localAddress: '127.0.0.2' })
  afterAll(() => Promise.all([here.close(), elsewhere.close()]))
  const ask = (from: Agent, query: string, headers: Record<string, string> = {}) =>
    undiciFetch(address, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
      dispatcher: from,
    }).then((r) => r.json() as Promise<{ errors?: unknown[] }>)

  it('30 operations with 30 made-up bearer tokens get one share, not 30: another address’s read overtakes them', async () => {
    const enqueue = vi.spyOn(FairShare.prototype, 'enqueue')
    onTestFinished(() => enqueue.mockRestore())
    const held = upstream.hold(/^\/v1\//)
    const heavy = Array.from({ length: 30 }, () =>
      ask(here, `{ list(listId: ${bigList.id}) { name } }`, {
        authorization: `Bearer ${randomUUID()}`,
      }),
    )
    // Each asks for its one read: two are sent, 28 wait.
    await vi.waitFor(() => expect(enqueue).toHaveBeenCalledTimes(30), { timeout: 10_000 })
    const light = ask(elsewhere, '{ lists(first: 1) { totalCount } }')
    await vi.waitFor(() => expect(enqueue).toHaveBeenCalledTimes(31), { timeout: 10_000 })
    // Two queues: the 30 operations' one and the other caller's.
    expect(new Set(enqueue.mock.calls.map(([ticket]) => ticket.lane)).size).toBe(2)
    held.release()
    const answers = await Promise.all([...heavy, light])
    expect(answers.map((a) => a.errors)).toEqual(answers.map(() => undefined))
    // One share for the 30: the next turn after the two in flight, or the one after. With a
    // share per made-up token it came 31st.
    expect(upstream.calls().findIndex((c) => c.path === '/v1/lists')).toBeLessThanOrEqual(3)
  })
})

describe('through the gateway with verified callers: a caller is its verified name', async () => {
  const keys = { heavy: 'heavy-key-0123456789', light: 'light-key-0123456789' }
  const dir = mkdtempSync(join(tmpdir(), 'gateway-keys-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const authApiKeysFile = join(dir, 'keys.json')
  const sha256 = (key: string) => createHash('sha256').update(key).digest('hex')
  writeFileSync(
    authApiKeysFile,
    JSON.stringify({ heavy: sha256(keys.heavy), light: sha256(keys.light) }),
  )
  const stack = await startStack({
    upstreamToken: DEMO_TOKEN,
    authApiKeysFile,
    upstreamMaxConnections: 2,
  })
  const ask = async (key: string, query: string) =>
    (await stack.post(query, {}, { authorization: `Bearer ${key}` })).body

  it('30 operations of one caller get one share: another caller’s read overtakes them', async () => {
    const enqueue = vi.spyOn(FairShare.prototype, 'enqueue')
    onTestFinished(() => enqueue.mockRestore())
    const held = stack.demo.hold(/^\/v1\//)
    const heavy = Array.from({ length: 30 }, () =>
      ask(keys.heavy, `{ list(listId: ${bigList.id}) { name } }`),
    )
    await vi.waitFor(() => expect(enqueue).toHaveBeenCalledTimes(30), { timeout: 10_000 })
    const light = ask(keys.light, '{ lists(first: 1) { totalCount } }')
    await vi.waitFor(() => expect(enqueue).toHaveBeenCalledTimes(31), { timeout: 10_000 })
    // Two queues: the 30 operations' one and the other caller's.
    expect(new Set(enqueue.mock.calls.map(([ticket]) => ticket.lane)).size).toBe(2)
    held.release()
    const answers = await Promise.all([...heavy, light])
    expect(answers.map((a) => a.errors)).toEqual(answers.map(() => undefined))
    expect(stack.demo.calls().findIndex((c) => c.path === '/v1/lists')).toBeLessThanOrEqual(3)
  })
})
