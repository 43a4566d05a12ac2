import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { UpstreamRateLimiter } from '../../src/upstream/rate-limit.js'
import { far, go, later, takeMany } from '../support/rate-limit.js'

/**
 * UPSTREAM_RATE_LIMIT per token, CALLER_RATE_LIMIT per caller and 429 pauses, decided in one
 * process (across replicas, in Redis: feature/rate-limit-redis.test.ts): a burst of one second's
 * worth then one turn every 1/rate, one reserved turn per caller at a time (so turns go round
 * robin between callers, whatever their backlogs), tokens independent, deadlines honoured.
 * Asserts on the turns the limiter gives, never on how long anything took.
 */

describe('in process', () => {
  // Only Date is frozen: the turns are then exact.
  let now: number
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] })
    now = Date.now()
  })
  const advance = (ms: number) => {
    now += ms
    vi.setSystemTime(now)
  }
  afterEach(() => {
    vi.useRealTimers()
  })

  it('allows a burst of `rate`, then one turn every 1/rate, refilling continuously', () => {
    const limiter = new UpstreamRateLimiter({ ratePerSecond: 10 })
    expect(takeMany(limiter, 'a', 'one', 10)).toEqual(Array(10).fill(go))
    // The next turn is reserved for the caller: asking again changes nothing until it comes.
    expect(takeMany(limiter, 'a', 'one', 3)).toEqual([later(100), later(100), later(100)])
    advance(100)
    expect(takeMany(limiter, 'a', 'one', 2)).toEqual([go, later(100)])
    // 1.5 s later the bucket is full again.
    advance(1500)
    expect(takeMany(limiter, 'a', 'one', 11)).toEqual([...Array(10).fill(go), later(100)])
  })

  it('gives turns round robin between callers, however many reads each has waiting', () => {
    const limiter = new UpstreamRateLimiter({ ratePerSecond: 10 })
    // A heavy caller takes the burst, then waits for its reserved turn with 90 reads behind it.
    expect(takeMany(limiter, 'a', 'heavy', 100)).toEqual([
      ...Array(10).fill(go),
      ...Array(90).fill(later(100)),
    ])
    // A light caller's turn is the one after: not behind the 90.
    expect(limiter.takeLocally('a', 'light', far)).toEqual(later(200))
    const turns: string[] = []
    for (let t = 0; t < 5; t++) {
      advance(100)
      for (const caller of ['heavy', 'light', 'third']) {
        if (limiter.takeLocally('a', caller, far).kind === 'go') turns.push(caller)
      }
    }
    // The third caller asked after both: its reserved turn comes after theirs, then it alternates.
    expect(turns).toEqual(['heavy', 'light', 'third', 'heavy', 'light'])
  })

  it('never delays one token for another’s saturation', () => {
    const limiter = new UpstreamRateLimiter({ ratePerSecond: 10 })
    takeMany(limiter, 'a', 'one', 30)
    expect(limiter.takeLocally('b', 'one', far)).toEqual(go)
  })

  it('refuses a turn that would come after the deadline and reserves nothing', () => {
    const limiter = new UpstreamRateLimiter({ ratePerSecond: 10 })
    takeMany(limiter, 'a', 'one', 10)
    expect(limiter.takeLocally('a', 'two', 50)).toEqual({ kind: 'tooLate', waitMs: 100 })
    // The refused turn took no slot: the next one is still the first after the burst.
    expect(limiter.takeLocally('a', 'three', 100)).toEqual(later(100))
    // A caller whose reserved turn comes after its deadline is refused as well.
    expect(limiter.takeLocally('a', 'three', 50)).toEqual({ kind: 'tooLate', waitMs: 100 })
  })

  it('holds a paused token’s requests until the pause ends, even with no rate set', async () => {
    const limiter = new UpstreamRateLimiter({})
    expect(takeMany(limiter, 'a', 'one', 50)).toEqual(Array(50).fill(go))
    await limiter.pause('a', now + 300)
    expect(limiter.takeLocally('a', 'one', far)).toEqual(later(300))
    expect(limiter.takeLocally('a', 'two', far)).toEqual(later(300))
    expect(limiter.takeLocally('b', 'one', far)).toEqual(go)
    expect(limiter.takeLocally('a', 'one', 100)).toEqual({ kind: 'tooLate', waitMs: 300 })
    // A shorter pause does not shorten a longer one.
    await limiter.pause('a', now + 100)
    expect(limiter.pausedUntil('a')).toBe(now + 300)
    advance(300)
    expect(limiter.takeLocally('a', 'one', far)).toEqual(go)
  })

  it('with a rate, lets the held turns go after a pause 1/rate apart, not in a burst', async () => {
    const limiter = new UpstreamRateLimiter({ ratePerSecond: 10 })
    await limiter.pause('a', now + 500)
    advance(500)
    expect(limiter.takeLocally('a', 'one', far)).toEqual(go)
    expect(limiter.takeLocally('a', 'two', far)).toEqual(later(100))
    expect(limiter.takeLocally('a', 'three', far)).toEqual(later(200))
    expect(limiter.takeLocally('b', 'one', far)).toEqual(go)
  })

  it('holds a caller to CALLER_RATE_LIMIT whatever the token, without taking the token’s turns', () => {
    const limiter = new UpstreamRateLimiter({ ratePerSecond: 10, callerRatePerSecond: 2 })
    expect(limiter.takeLocally('a', 'one', far)).toEqual(go)
    expect(limiter.takeLocally('b', 'one', far)).toEqual(go)
    expect(limiter.takeLocally('c', 'one', far)).toEqual(later(500))
    // The token's bucket lost nothing to the refused turn: with one turn of it taken, nine more
    // go (two per caller, each caller's own burst), then the token's limit holds.
    for (const caller of ['two', 'three', 'four', 'five']) {
      expect(takeMany(limiter, 'a', caller, 2)).toEqual([go, go])
    }
    expect(takeMany(limiter, 'a', 'six', 2)).toEqual([go, later(100)])
    advance(500)
    expect(limiter.takeLocally('c', 'one', far)).toEqual(go)
  })

  it('refuses a rate that is not a positive number', () => {
    expect(() => new UpstreamRateLimiter({ ratePerSecond: 0 })).toThrow(RangeError)
    expect(() => new UpstreamRateLimiter({ ratePerSecond: Number.NaN })).toThrow(RangeError)
    expect(() => new UpstreamRateLimiter({ callerRatePerSecond: -1 })).toThrow(RangeError)
  })
})
