import { afterEach, describe, expect, it, vi } from 'vitest'
import { UpstreamRateLimiter } from '../../src/upstream/rate-limit.js'
import { far, refusal, reserveMany } from '../support/rate-limit.js'

/**
 * UPSTREAM_RATE_LIMIT and 429 pauses, per token: a burst of one second's worth then one turn
 * every 1/rate, turns reserved in order, tokens independent, deadlines and aborts honoured, in
 * one process (across replicas: feature/rate-limit-redis.test.ts). Asserts on the waits the
 * limiter reserves, never on how long anything took.
 */

const never = new AbortController().signal

describe('in process', () => {
  // Only Date is frozen: the waits are then exact, and timers still run for real.
  let now: number
  const frozen = () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    now = Date.now()
  }
  const advance = (ms: number) => {
    now += ms
    vi.setSystemTime(now)
  }
  afterEach(() => {
    vi.useRealTimers()
  })

  it('allows a burst of `rate`, then spaces turns 1/rate apart, refilling continuously', async () => {
    frozen()
    const limiter = new UpstreamRateLimiter({ ratePerSecond: 10 })
    const waits = await reserveMany(limiter, 'a', 15)
    expect(waits).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 200, 300, 400, 500])

    // 1.5 s later the five extra turns are long past and half a bucket has refilled.
    const fresh = new UpstreamRateLimiter({ ratePerSecond: 10 })
    await reserveMany(fresh, 'a', 10)
    advance(500)
    expect(await reserveMany(fresh, 'a', 7)).toEqual([0, 0, 0, 0, 0, 100, 200])
  })

  it('reserves concurrent turns in the order they were asked for', async () => {
    frozen()
    const limiter = new UpstreamRateLimiter({ ratePerSecond: 100 })
    const waits = await Promise.all(Array.from({ length: 110 }, () => limiter.reserve('a', far)))
    expect(waits).toEqual([...Array(100).fill(0), 10, 20, 30, 40, 50, 60, 70, 80, 90, 100])

    // Turns: the burst goes at once, every waiting turn goes too. (The order in which the waits
    // end is the timers', which a loaded machine does not always keep.)
    const served: number[] = []
    await Promise.all(
      Array.from({ length: 110 }, (_, i) =>
        limiter.turn('b', far, never).then(() => served.push(i)),
      ),
    )
    expect(served.slice(0, 100)).toEqual(Array.from({ length: 100 }, (_, i) => i))
    expect([...served].sort((x, y) => x - y)).toEqual(Array.from({ length: 110 }, (_, i) => i))
  })

  it('never delays one token for another’s saturation', async () => {
    frozen()
    const limiter = new UpstreamRateLimiter({ ratePerSecond: 10 })
    await reserveMany(limiter, 'a', 30)
    const stop = new AbortController()
    const order: string[] = []
    const waitingA = limiter.turn('a', far, stop.signal).then(
      () => order.push('a'),
      () => order.push('a aborted'),
    )
    expect(await limiter.reserve('b', far)).toBe(0)
    await limiter.turn('b', far, never).then(() => order.push('b'))
    stop.abort()
    await waitingA
    expect(order).toEqual(['b', 'a aborted'])
  })

  it('refuses a turn past the deadline with RateLimitWait and reserves nothing', async () => {
    frozen()
    const limiter = new UpstreamRateLimiter({ ratePerSecond: 10 })
    await reserveMany(limiter, 'a', 10)
    const refused = await refusal(limiter.reserve('a', now + 50))
    expect(refused.waitMs).toBe(100)
    expect((await refusal(limiter.turn('a', now + 99, never))).waitMs).toBe(100)
    // The refused turns took no slot: the next one is still the first after the burst.
    expect(await limiter.reserve('a', now + 100)).toBe(100)
    expect(await limiter.reserve('a', far)).toBe(200)
  })

  it('ends a wait when the signal aborts, with its reason', async () => {
    frozen()
    const limiter = new UpstreamRateLimiter({ ratePerSecond: 1 })
    await limiter.reserve('a', far)
    const stop = new AbortController()
    const waiting = limiter.turn('a', far, stop.signal)
    const reason = new Error('operation ended')
    stop.abort(reason)
    await expect(waiting).rejects.toBe(reason)

    const plain = new AbortController()
    const waitingPlain = limiter.turn('a', far, plain.signal)
    plain.abort()
    await expect(waitingPlain).rejects.toMatchObject({ name: 'AbortError' })
    // Already aborted: rejected before anything is reserved.
    await expect(limiter.turn('a', far, plain.signal)).rejects.toMatchObject({
      name: 'AbortError',
    })
  })

  it('holds a paused token’s turns until the pause ends, even with no rate set', async () => {
    frozen()
    const limiter = new UpstreamRateLimiter({})
    expect(await reserveMany(limiter, 'a', 50)).toEqual(Array(50).fill(0))
    await limiter.pause('a', now + 300)
    expect(await limiter.reserve('a', far)).toBe(300)
    expect(await limiter.reserve('a', far)).toBe(300)
    expect(await limiter.reserve('b', far)).toBe(0)
    expect((await refusal(limiter.turn('a', now + 100, never))).waitMs).toBe(300)
    // A shorter pause does not shorten a longer one.
    await limiter.pause('a', now + 100)
    expect(await limiter.reserve('a', far)).toBe(300)
    advance(300)
    expect(await limiter.reserve('a', far)).toBe(0)
  })

  it('with a rate, lets the held turns go after a pause 1/rate apart, not in a burst', async () => {
    frozen()
    const limiter = new UpstreamRateLimiter({ ratePerSecond: 10 })
    await limiter.pause('a', now + 500)
    expect(await reserveMany(limiter, 'a', 3)).toEqual([500, 600, 700])
    expect(await limiter.reserve('b', far)).toBe(0)
  })

  it('refuses a rate that is not a positive number', () => {
    expect(() => new UpstreamRateLimiter({ ratePerSecond: 0 })).toThrow(RangeError)
    expect(() => new UpstreamRateLimiter({ ratePerSecond: Number.NaN })).toThrow(RangeError)
  })
})
