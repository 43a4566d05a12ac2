import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ReadCache, ttlOf } from '../../../src/upstream/cache.js'
import { readKey } from '../../../src/upstream/redis.js'
import { fakeRedis } from './fake-redis.js'

/**
 * The cache of reads (src/upstream/cache.ts) on a fake clock: the in-process tier (fresh, then
 * kept for stale-if-error, bounded in bytes), Redis behind it (shared, looked at again after a
 * second so a refresh elsewhere is seen), and the upstream's Cache-Control.
 */

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})
const options = { ttlSeconds: 60, staleSeconds: 600, maxBytes: 1024 * 1024 }

describe('in process', () => {
  it('answers a stored read while fresh, then hands it down as stale, then forgets it', async () => {
    const cache = new ReadCache(options)
    await cache.store('k', { name: 'a' }, 10, 60)
    expect(await cache.lookup('k', false)).toEqual({ value: { name: 'a' } })
    vi.advanceTimersByTime(60_000)
    expect(await cache.lookup('k', false)).toEqual({ stale: { name: 'a' } })
    vi.advanceTimersByTime(600_000)
    expect(await cache.lookup('k', false)).toEqual({ stale: undefined })
  })

  it('serves nothing to a no-cache read, not even a stale entry', async () => {
    const cache = new ReadCache(options)
    await cache.store('k', { name: 'a' }, 10, 60)
    expect(await cache.lookup('k', true)).toEqual({})
  })

  it('keeps nothing the upstream says not to keep, and drops what it had', async () => {
    const cache = new ReadCache(options)
    await cache.store('k', { name: 'a' }, 10, 60)
    await cache.store('k', { name: 'b' }, 10, 0)
    expect(await cache.lookup('k', false)).toEqual({ stale: undefined })
  })

  it('freezes what it serves: one object for every operation', async () => {
    const cache = new ReadCache(options)
    const value = { data: [{ name: 'a' }] }
    await cache.store('k', value, 10, 60)
    expect(Object.isFrozen(value.data[0])).toBe(true)
  })

  it('holds as many entries as maxBytes allows, least recently used going first', async () => {
    const cache = new ReadCache({ ...options, maxBytes: 100 })
    for (let i = 0; i < 5; i++) await cache.store(`k${i}`, { i }, 30, 60)
    const held = await Promise.all([0, 1, 2, 3, 4].map((i) => cache.lookup(`k${i}`, false)))
    expect(held.map((found) => found.value !== undefined)).toEqual([false, false, true, true, true])
  })
})

describe('with Redis', () => {
  it('serves another replica’s read from Redis, and keeps it in process', async () => {
    const redis = fakeRedis()
    await new ReadCache({ ...options, redis: redis.link }).store('k', { name: 'a' }, 10, 60)
    const other = new ReadCache({ ...options, redis: redis.link })
    expect(await other.lookup('k', false)).toEqual({ value: { name: 'a' } })
    redis.commands.length = 0
    expect(await other.lookup('k', false)).toEqual({ value: { name: 'a' } })
    expect(redis.commands).toEqual([])
  })

  it('looks at Redis again after a second: a refresh by another replica is what it answers next', async () => {
    const redis = fakeRedis()
    const [one, two] = [1, 2].map(() => new ReadCache({ ...options, redis: redis.link }))
    await one?.store('k', { name: 'old' }, 10, 60)
    expect(await two?.lookup('k', false)).toEqual({ value: { name: 'old' } })
    await one?.store('k', { name: 'new' }, 10, 60)
    expect(await two?.lookup('k', false)).toEqual({ value: { name: 'old' } })
    vi.advanceTimersByTime(1000)
    expect(await two?.lookup('k', false)).toEqual({ value: { name: 'new' } })
    // Removed on one (a refresh learned it must go): the other reads it again.
    await one?.forget('k')
    vi.advanceTimersByTime(1000)
    expect(await two?.lookup('k', false)).toEqual({ stale: { name: 'new' } })
  })

  it('ignores what it cannot read (another version’s entry, a lock) and what Redis expired', async () => {
    const redis = fakeRedis()
    const cache = new ReadCache({ ...options, redis: redis.link })
    for (const unreadable of ['not an entry', '\0a lock', '123']) {
      redis.values.set(readKey('k'), { value: unreadable, until: Date.now() + 60_000 })
      expect(await cache.lookup('k', false)).toEqual({ stale: undefined })
    }
    await cache.store('k', { name: 'a' }, 10, 60)
    vi.advanceTimersByTime(60_000)
    expect(await cache.lookup('k', false)).toEqual({ stale: { name: 'a' } })
  })

  it('with Redis down answers from the process alone, for the whole TTL', async () => {
    const redis = fakeRedis()
    const cache = new ReadCache({ ...options, redis: redis.link })
    await cache.store('k', { name: 'a' }, 10, 60)
    redis.up = false
    vi.advanceTimersByTime(30_000)
    expect(await cache.lookup('k', false)).toEqual({ value: { name: 'a' } })
  })
})

describe('ttlOf (the upstream’s Cache-Control)', () => {
  it.each([
    [undefined, undefined],
    ['max-age=60', 60],
    ['public, s-maxage=5, max-age=60', 5],
    ['max-age=60, s-maxage=5', 5],
    ['no-store', 0],
    ['no-cache', 0],
    ['max-age=nope', undefined],
    ['max-age="30"', 30],
  ])('%s → %s', (header, ttl) => {
    expect(ttlOf(header)).toBe(ttl)
  })
})
