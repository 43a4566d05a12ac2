import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { RateLimiter } from '../../../src/upstream/rate-limit.js'

/**
 * The rate buckets in one process (src/upstream/rate-limit.ts; every replica's in Redis:
 * test/feature/redis-rate-limit.test.ts), on a clock that moves only when told: a burst of one
 * second's worth, then a turn every 1/rate, each turn reserved by whoever asked for it; tokens
 * independent; a turn past the longest wait taking nothing; 429 pauses.
 */

let now: number
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  now = Date.now()
})
afterEach(() => {
  vi.useRealTimers()
})
const advance = (ms: number) => {
  now += ms
  vi.setSystemTime(now)
}
const far = Number.POSITIVE_INFINITY
/** The waits of `count` turns asked one after the other. */
const turns = (limiter: RateLimiter, count: number, token = 'a', caller = 'one') =>
  Array.from({ length: count }, () => limiter.turn(token, caller, far))

describe('RateLimiter, in process', () => {
  it('allows a burst of `rate`, then reserves one turn every 1/rate, refilling continuously', () => {
    const limiter = new RateLimiter(10)
    expect(turns(limiter, 10)).toEqual(Array(10).fill(0))
    expect(turns(limiter, 3)).toEqual([100, 200, 300])
    advance(300)
    expect(turns(limiter, 1)).toEqual([100])
    advance(2000)
    expect(turns(limiter, 11)).toEqual([...Array(10).fill(0), 100])
  })

  it('takes nothing for a turn past the longest wait', () => {
    const limiter = new RateLimiter(10)
    turns(limiter, 10)
    expect(limiter.turn('a', 'two', 50)).toBe(100)
    // Not taken: the next turn is still the first after the burst.
    expect(limiter.turn('a', 'three', far)).toBe(100)
  })

  it('never delays one token for another’s saturation', () => {
    const limiter = new RateLimiter(10)
    turns(limiter, 30)
    expect(limiter.turn('b', 'one', far)).toBe(0)
  })

  it('holds a caller to CALLER_RATE_LIMIT whatever the token, others going at once', () => {
    const limiter = new RateLimiter(undefined, 2)
    expect([limiter.turn('a', 'one', far), limiter.turn('b', 'one', far)]).toEqual([0, 0])
    expect(limiter.turn('c', 'one', far)).toBe(500)
    expect(limiter.turn('a', 'another', far)).toBe(0)
    expect(limiter.settings).toEqual(['CALLER_RATE_LIMIT'])
  })

  it('with both limits, a turn comes when both buckets have one', () => {
    const limiter = new RateLimiter(10, 2)
    expect(turns(limiter, 3)).toEqual([0, 0, 500])
    expect(limiter.settings).toEqual(['UPSTREAM_RATE_LIMIT', 'CALLER_RATE_LIMIT'])
  })

  it('holds a paused token until the pause ends, even with no rate set; a shorter pause does not shorten it', () => {
    const limiter = new RateLimiter()
    expect(turns(limiter, 50)).toEqual(Array(50).fill(0))
    limiter.pause('a', 300)
    expect([limiter.turn('a', 'one', far), limiter.turn('a', 'two', far)]).toEqual([300, 300])
    expect(limiter.turn('b', 'one', far)).toBe(0)
    limiter.pause('a', 100)
    expect(limiter.pausedUntil('a')).toBe(now + 300)
    advance(300)
    expect(limiter.turn('a', 'one', far)).toBe(0)
    expect(limiter.pausedUntil('a')).toBeUndefined()
  })

  it('with a rate, lets the turns held back by a pause go 1/rate apart, not in a burst', () => {
    const limiter = new RateLimiter(10)
    limiter.pause('a', 500)
    advance(500)
    expect(turns(limiter, 3)).toEqual([0, 100, 200])
  })
})
