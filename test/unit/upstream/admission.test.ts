import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { admit, FairShare, type Ticket, Twins } from '../../../src/upstream/admission.js'
import { UpstreamError } from '../../../src/upstream/errors.js'
import { RateLimiter } from '../../../src/upstream/rate-limit.js'
import { readOf } from './scope.js'

/**
 * Admission (src/upstream/admission.ts) on a fake clock: connections round robin between
 * callers' lanes, FIFO within one; a withdrawn ticket never served; a lane that waits for its
 * rate turn skipped until then, one reserved turn per caller; waiting bounded by the operation's
 * end and deadline and the read's.
 */

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** Tickets that record the order they are granted in and keep their releases. */
function recorder() {
  const granted: string[] = []
  const releases = new Map<string, () => void>()
  const ticket = (name: string, lane: string): Ticket => ({
    lane,
    granted: (release) => {
      granted.push(name)
      releases.set(name, release)
    },
  })
  return { granted, ticket, release: (name: string) => releases.get(name)?.() }
}

describe('FairShare', () => {
  it('hands free connections round robin across lanes, FIFO within a lane', () => {
    const share = new FairShare(2)
    const { granted, ticket, release } = recorder()
    const names = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b1', 'c1', 'b2']
    for (const name of names) share.enqueue(ticket(name, name[0] ?? ''))
    expect(granted).toEqual(['a1', 'a2'])
    for (let i = 0; granted.length < names.length; i++) release(granted[i] ?? '')
    expect(granted).toEqual(['a1', 'a2', 'a3', 'b1', 'c1', 'a4', 'b2', 'a5', 'a6'])
  })

  it('never serves a withdrawn ticket, and counts a release once', () => {
    const share = new FairShare(1)
    const { granted, ticket, release } = recorder()
    const [a, b] = [ticket('a', 'A'), ticket('b', 'B')]
    share.enqueue(a)
    share.enqueue(b)
    share.enqueue(ticket('c', 'C'))
    expect(share.withdraw(b)).toBe(true)
    expect(share.withdraw(a)).toBe(false)
    release('a')
    release('a')
    expect(granted).toEqual(['a', 'c'])
    share.enqueue(ticket('d', 'D'))
    expect(granted).toEqual(['a', 'c'])
    release('c')
    expect(granted).toEqual(['a', 'c', 'd'])
  })

  it('skips a lane that waits for its turn until then, serving the others meanwhile', () => {
    const share = new FairShare(1)
    const { granted, ticket, release } = recorder()
    const a1 = ticket('a1', 'A')
    for (const t of [a1, ticket('b1', 'B'), ticket('b2', 'B'), ticket('c1', 'C')]) share.enqueue(t)
    release('a1')
    share.defer(a1, Date.now() + 100)
    for (const name of ['b1', 'c1', 'b2']) release(name)
    expect(granted).toEqual(['a1', 'b1', 'c1', 'b2'])
    vi.advanceTimersByTime(100)
    expect(granted).toEqual(['a1', 'b1', 'c1', 'b2', 'a1'])
  })

  it('serves lanes whose turns came in the order they came, even when timers fire late', () => {
    const share = new FairShare(1)
    const { granted, ticket, release } = recorder()
    const [a1, b1] = [ticket('a1', 'A'), ticket('b1', 'B')]
    share.enqueue(ticket('c1', 'C'))
    share.enqueue(b1)
    share.enqueue(a1)
    release('c1')
    release('b1')
    share.defer(b1, Date.now() + 200)
    release('a1')
    share.defer(a1, Date.now() + 100)
    share.enqueue(ticket('c2', 'C'))
    vi.setSystemTime(Date.now() + 300)
    release('c2')
    release('a1')
    expect(granted).toEqual(['c1', 'b1', 'a1', 'c2', 'a1', 'b1'])
  })
})

describe('admit', () => {
  const outcome = (admitted: Promise<(() => void) | undefined>) =>
    admitted.then(
      (release) => (release ? 'admitted' : 'withdrawn'),
      (error: UpstreamError) => error,
    )

  it('admits at once while a connection is free, and queues the rest until one is released', async () => {
    const share = new FairShare(1)
    const limiter = new RateLimiter()
    const first = await admit(readOf(), { share, limiter, timeoutMs: 1000 })
    let second = 'waiting'
    void admit(readOf(), { share, limiter, timeoutMs: 1000 }).then(() => {
      second = 'admitted'
    })
    await vi.advanceTimersByTimeAsync(10)
    expect(second).toBe('waiting')
    first?.()
    await vi.advanceTimersByTimeAsync(0)
    expect(second).toBe('admitted')
  })

  it('ends a queued wait with the operation (cancelled), or at its deadline (UPSTREAM_TIMEOUT, its own)', async () => {
    const share = new FairShare(1)
    const limiter = new RateLimiter()
    await admit(readOf(), { share, limiter, timeoutMs: 1000 })
    const ended = new AbortController()
    const cancelled = outcome(
      admit(readOf({ signal: ended.signal }), { share, limiter, timeoutMs: 1000 }),
    )
    const late = outcome(
      admit(readOf({ deadline: Date.now() + 50 }), { share, limiter, timeoutMs: 1000 }),
    )
    ended.abort()
    expect(await cancelled).toMatchObject({ cancelled: true })
    await vi.advanceTimersByTimeAsync(50)
    expect(await late).toMatchObject({ code: 'UPSTREAM_TIMEOUT', callersOwn: true })
  })

  it('withdraws a read waiting in any lane once its twin is admitted: it takes no connection', async () => {
    const share = new FairShare(1)
    const admission = { share, limiter: new RateLimiter(), timeoutMs: 1000, twins: new Twins() }
    const first = await admit(readOf({ fairnessKey: 'a' }), admission, 'other')
    const twins = ['a', 'b'].map((lane) =>
      outcome(admit(readOf({ fairnessKey: lane }), admission, 'k')),
    )
    const made = outcome(admit(readOf({ fairnessKey: 'c' }), admission, 'k'))
    first?.()
    // The first of the three admitted, its twins withdrawn (they join it once sent).
    expect(await Promise.all([...twins, made])).toEqual(['admitted', 'withdrawn', 'withdrawn'])
  })

  it('has a read whose twin asks Redis for its turn wait to see it: twins take no turn of their own', async () => {
    const share = new FairShare(4)
    const limiter = new RateLimiter(10)
    const turn = vi
      .spyOn(limiter, 'turn')
      .mockImplementation(() => new Promise((resolve) => setTimeout(() => resolve(0), 5)))
    const admission = { share, limiter, timeoutMs: 1000, twins: new Twins() }
    const reads = ['a', 'b', 'c'].map((lane) =>
      outcome(admit(readOf({ fairnessKey: lane }), admission, 'k')),
    )
    await vi.advanceTimersByTimeAsync(10)
    expect(await Promise.all(reads)).toEqual(['admitted', 'withdrawn', 'withdrawn'])
    expect(turn).toHaveBeenCalledOnce()
    // A twin whose turn comes later is not admitted: the others ask their own turns then.
    turn.mockImplementationOnce(() => new Promise((resolve) => setTimeout(() => resolve(5000), 5)))
    const late = ['a', 'b'].map((lane) =>
      outcome(admit(readOf({ fairnessKey: lane }), admission, 'j')),
    )
    await vi.advanceTimersByTimeAsync(20)
    expect(turn).toHaveBeenCalledTimes(3)
    expect(await late[1]).toBe('admitted')
  })

  it('withdraws a twin that asks as another is admitted, before that one is under way to be joined', async () => {
    const admission = { share: new FairShare(4), limiter: new RateLimiter(), timeoutMs: 1000 }
    const twins = { ...admission, twins: new Twins() }
    const first = admit(readOf({ fairnessKey: 'a' }), twins, 'k')
    // Asked in the same turn of the event loop: the first has not gone on to be sent yet.
    const [twin, other] = [
      admit(readOf({ fairnessKey: 'b' }), twins, 'k'),
      admit(readOf(), twins, 'j'),
    ]
    expect(await Promise.all([first, twin, other].map(outcome))).toEqual([
      'admitted',
      'withdrawn',
      'admitted',
    ])
    // Once it has gone on (the next microtask), a read of the same key that found nothing to
    // join (the first is done) is admitted.
    expect(await outcome(admit(readOf({ fairnessKey: 'b' }), twins, 'k'))).toBe('admitted')
    expect(await outcome(admit(readOf(), admission, 'k'))).toBe('admitted')
  })

  it('tells the twins of a read that it was admitted, once, and not after a watch ends', () => {
    const twins = new Twins()
    const told = vi.fn()
    const ignored = vi.fn()
    twins.watch('k', told)
    twins.watch('k', ignored)()
    twins.admitted('k')
    twins.admitted('k')
    expect(told).toHaveBeenCalledOnce()
    expect(ignored).not.toHaveBeenCalled()
  })

  it('waits for a rate turn without holding a connection, one reserved turn per caller', async () => {
    const share = new FairShare(32)
    const limiter = new RateLimiter(10)
    const order: string[] = []
    const read = (lane: string) =>
      admit(readOf({ fairnessKey: lane }), { share, limiter, timeoutMs: 10_000 }).then(
        (release) => {
          order.push(lane)
          release?.()
        },
      )
    // The bucket's second's worth goes at once; the heavy caller's next waits 100 ms…
    const heavy = Array.from({ length: 15 }, () => read('heavy'))
    await vi.advanceTimersByTimeAsync(0)
    expect(order).toHaveLength(10)
    // …and a light caller's read asked now takes the turn after it, not after the backlog.
    const light = read('light')
    await vi.advanceTimersByTimeAsync(200)
    expect(order.slice(10)).toEqual(['heavy', 'light'])
    await vi.advanceTimersByTimeAsync(1000)
    await Promise.all([...heavy, light])
    expect(order.filter((lane) => lane === 'heavy')).toHaveLength(15)
  })

  it('refuses a turn past the read’s time left with RATE_LIMITED and the seconds until it', async () => {
    const share = new FairShare(32)
    const limiter = new RateLimiter(1)
    await admit(readOf(), { share, limiter, timeoutMs: 500 })
    const refused = await outcome(admit(readOf(), { share, limiter, timeoutMs: 500 }))
    expect(refused).toBeInstanceOf(UpstreamError)
    expect((refused as UpstreamError).extensions).toEqual({
      code: 'RATE_LIMITED',
      retryable: true,
      retryAfterSeconds: 1,
    })
    expect((refused as UpstreamError).message).toContain(
      'the rate limit (UPSTREAM_RATE_LIMIT) has no turn free',
    )
  })

  it('says so when the upstream’s 429 is what holds a token back', async () => {
    const limiter = new RateLimiter()
    limiter.pause('token', 30_000)
    const refused = await outcome(
      admit(readOf(), { share: new FairShare(1), limiter, timeoutMs: 1000 }),
    )
    expect((refused as UpstreamError).message).toContain('the upstream answered 429')
    expect((refused as UpstreamError).retryAfterSeconds).toBe(30)
  })
})
