import { getEventListeners } from 'node:events'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { UpstreamError } from '../../../src/upstream/errors.js'
import { Resilience, RetryBudget, retryDelayMs } from '../../../src/upstream/resilience.js'
import { readOf } from './scope.js'

/**
 * Resilience (src/upstream/resilience.ts) on a fake clock: what is retried and when, the retry
 * budget and its reserve for first-part reads, deadlines, and the circuit per endpoint and token.
 */

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

const policy = { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1000 }
const failure = (status: number, details: Partial<UpstreamError['details']> = {}) =>
  new UpstreamError(status === 429 ? 'RATE_LIMITED' : 'UPSTREAM_ERROR', 'GET /v1/x', 'x', {
    status,
    ...details,
  })

/** Runs `read` through `resilience` with attempts answering `outcomes` in turn (an error throws). */
async function run(
  resilience: Resilience,
  outcomes: unknown[],
  read = readOf(),
): Promise<{ value?: unknown; error?: UpstreamError; attempts: number[] }> {
  const attempts: number[] = []
  const done = resilience
    .run(read, async (n) => {
      attempts.push(Date.now())
      const outcome = outcomes[n - 1]
      if (outcome instanceof Error) throw outcome
      return outcome
    })
    .then(
      (value) => ({ value }),
      (error: UpstreamError) => ({ error }),
    )
  await vi.runAllTimersAsync()
  return { ...(await done), attempts }
}

describe('retries', () => {
  it('retries a 503 after a jittered backoff and answers the retry', async () => {
    const started = Date.now()
    const { value, attempts } = await run(new Resilience(policy), [failure(503), 'ok'])
    expect(value).toBe('ok')
    expect((attempts[1] ?? 0) - started).toBeGreaterThanOrEqual(50)
  })

  it('never retries a 500, a 4xx but 429, a timeout or a bad body', async () => {
    for (const error of [
      failure(500),
      failure(404),
      new UpstreamError('UPSTREAM_TIMEOUT', 'GET /v1/x', 'slow'),
      new UpstreamError('UPSTREAM_BAD_RESPONSE', 'GET /v1/x', 'bad', { status: 200 }),
    ]) {
      const { attempts } = await run(new Resilience(policy), [error, 'ok'])
      expect(attempts).toHaveLength(1)
    }
  })

  it('gives up after maxRetries, with what the upstream said', async () => {
    const { error, attempts } = await run(new Resilience(policy), Array(5).fill(failure(503)))
    expect(attempts).toHaveLength(3)
    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', status: 503 })
  })

  it('waits as long as a longer Retry-After says, within the read’s deadline', async () => {
    const read = readOf()
    read.readDeadline = Date.now() + 5000
    const started = Date.now()
    const { value, attempts } = await run(
      new Resilience(policy),
      [failure(429, { retryAfterSeconds: 3 }), 'ok'],
      read,
    )
    expect(value).toBe('ok')
    expect((attempts[1] ?? 0) - started).toBe(3000)
  })

  it('does not wait past the read’s deadline; past the operation’s, the failure is its own', async () => {
    const read = readOf()
    read.readDeadline = Date.now() + 1000
    const tooLong = failure(503, { retryAfterSeconds: 120 })
    expect((await run(new Resilience(policy), [tooLong, 'ok'], read)).attempts).toHaveLength(1)
    const hurried = readOf({ deadline: Date.now() + 30 })
    const { error } = await run(new Resilience(policy), [failure(503), 'ok'], hurried)
    expect(error).toMatchObject({ status: 503, callersOwn: true })
  })

  it('a retry the operation’s budget refuses fails with the upstream’s word, as the operation’s own', async () => {
    const spent = new UpstreamError('QUERY_TOO_COSTLY', 'GET /v1/x', 'spent')
    const { error } = await run(new Resilience(policy), [failure(503), spent])
    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', status: 503, callersOwn: true })
  })

  it('retries a joined request’s failure at once: the backoff was its maker’s', async () => {
    const started = Date.now()
    const joined = failure(503, { joined: true })
    const { value, attempts } = await run(new Resilience(policy), [joined, 'ok'])
    expect(value).toBe('ok')
    expect(attempts).toEqual([started, started])
  })

  it('stops at once when the operation ends during a backoff', async () => {
    const ended = new AbortController()
    const read = readOf({ signal: ended.signal })
    const done = new Resilience(policy).run(read, async () => {
      throw failure(503)
    })
    const settled = done.catch((error: UpstreamError) => error)
    await vi.advanceTimersByTimeAsync(1)
    ended.abort()
    expect(await settled).toMatchObject({ cancelled: true })
  })
  it('leaves no listener on the operation’s signal once its backoffs are over', async () => {
    const operation = new AbortController()
    const read = readOf({ signal: operation.signal })
    const { value } = await run(new Resilience(policy), [failure(503), failure(503), 'ok'], read)
    expect(value).toBe('ok')
    expect(getEventListeners(operation.signal, 'abort')).toHaveLength(0)
  })
})

describe('the retry budget', () => {
  it('allows ten retries, then one per five reads', () => {
    const budget = new RetryBudget()
    for (let i = 0; i < 10; i++) expect(budget.withdraw()).toBe(true)
    expect(budget.withdraw()).toBe(false)
    for (let i = 0; i < 5; i++) budget.deposit()
    expect([budget.withdraw(), budget.withdraw()]).toEqual([true, false])
  })

  it('refuses a deferred read’s retry before a first-part read’s: the first part keeps a reserve', () => {
    const budget = new RetryBudget()
    for (let i = 0; i < 5; i++) expect(budget.withdraw(true)).toBe(true)
    // 5 tokens left: a deferred read would leave fewer than the reserve of 5.
    expect(budget.withdraw(true)).toBe(false)
    for (let i = 0; i < 5; i++) expect(budget.withdraw(false)).toBe(true)
    expect(budget.withdraw(false)).toBe(false)
  })

  it('in a read: a deferred read gives up where a first-part read still retries', async () => {
    const resilience = new Resilience(policy)
    // Spend the budget down to its reserve (10 tokens, each read deposits 0.2).
    for (let i = 0; i < 5; i++) resilience.budget.withdraw()
    // One scope per read made as the loaders make it: over the operation's, `deferred` its own.
    const later = readOf()
    later.scope = Object.assign(Object.create(later.scope), { deferred: true })
    const failed = await run(resilience, [failure(503), 'ok'], later)
    expect(failed.attempts).toHaveLength(1)
    // The same read, now wanted by the first part too (its flag turned false): it is retried.
    Object.assign(later.scope, { deferred: false })
    const first = await run(resilience, [failure(503), 'ok'], later)
    expect(first).toMatchObject({ value: 'ok' })
    expect(first.attempts).toHaveLength(2)
  })
})

describe('the circuit of an endpoint and token', () => {
  const circuit = { failures: 3, openMs: 10_000 }

  it('opens after `failures` reads in a row fail for good, refusing the next at once with when it is tried again', async () => {
    const resilience = new Resilience({ ...policy, maxRetries: 0 }, circuit)
    for (let i = 0; i < 3; i++) await run(resilience, [failure(503)])
    const refused = await run(resilience, ['ok'])
    expect(refused.attempts).toEqual([])
    expect(refused.error?.extensions).toEqual({
      code: 'UPSTREAM_ERROR',
      retryable: true,
      retryAfterSeconds: 10,
    })
    expect(resilience.openByEndpoint()).toEqual(new Map([['/v1/lists/{id}', 1]]))
    // Another token's circuit is its own.
    expect((await run(resilience, ['ok'], readOf({}, 'other'))).value).toBe('ok')
  })

  it('after the open time, one read probes without retries; its answer closes the circuit', async () => {
    const resilience = new Resilience(policy, circuit)
    for (let i = 0; i < 3; i++) await run(resilience, Array(3).fill(failure(503)))
    vi.setSystemTime(Date.now() + 10_000)
    const probe = await run(resilience, [failure(503), 'ok'])
    expect(probe.attempts).toHaveLength(1)
    expect(probe.error?.retryAfterSeconds).toBe(10)
    vi.setSystemTime(Date.now() + 10_000)
    expect((await run(resilience, ['ok'])).value).toBe('ok')
    expect(resilience.openByEndpoint()).toEqual(new Map([['/v1/lists/{id}', 0]]))
  })

  it('counts neither joined failures, nor the operation’s own, nor a 429', async () => {
    const resilience = new Resilience({ ...policy, maxRetries: 0 }, circuit)
    const ended = new UpstreamError('UPSTREAM_ERROR', 'GET /v1/x', 'ended', { cancelled: true })
    for (const error of [failure(503, { joined: true }), ended, failure(429)]) {
      for (let i = 0; i < 3; i++) await run(resilience, [error])
    }
    expect((await run(resilience, ['ok'])).value).toBe('ok')
  })
})

describe('backoff', () => {
  it('doubles up to the cap, with jitter between half and all of it', () => {
    expect(retryDelayMs(policy, 0, undefined, () => 0)).toBe(50)
    expect(retryDelayMs(policy, 0, undefined, () => 1)).toBe(100)
    expect(retryDelayMs(policy, 1, undefined, () => 1)).toBe(200)
    expect(retryDelayMs(policy, 8, undefined, () => 1)).toBe(1000)
    // The upstream's Retry-After when longer.
    expect(retryDelayMs(policy, 0, 3, () => 0.5)).toBe(3000)
  })
})
