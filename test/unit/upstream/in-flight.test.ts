import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { InFlight, LOCKED } from '../../../src/upstream/in-flight.js'
import { readKey } from '../../../src/upstream/redis.js'
import { fakeRedis } from './fake-redis.js'
import { scopeOf } from './scope.js'

/**
 * Joining reads in flight (src/upstream/in-flight.ts) on a fake clock: in process, an attempt is
 * joinable only while it is under way, and whoever waits for it in a queue hears when it begins;
 * across replicas, a lock taken with SET NX that holds the read's key until its answer replaces
 * it, and waiters that look at the key until then, never past Redis going down.
 */

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** A promise and its resolution, from outside. */
function deferred<T>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

describe('in process', () => {
  it('joins an attempt only while it is under way, and one begun since `since`', async () => {
    const inFlight = new InFlight()
    const answer = deferred<string>()
    expect(inFlight.join('k')).toBeUndefined()
    const sent = inFlight.send('k', () => answer.promise)
    const joined = inFlight.join<string>('k')
    expect(inFlight.join('k', Date.now() + 1)).toBeUndefined()
    answer.resolve('value')
    expect(await Promise.all([sent, joined])).toEqual(['value', 'value'])
    expect(inFlight.join('k')).toBeUndefined()
  })

  it('hands its failure to those who joined it, and reports none of its own when nobody did', async () => {
    const inFlight = new InFlight()
    const failing = inFlight.send('k', async () => {
      throw new Error('503')
    })
    await expect(failing).rejects.toThrow('503')
  })
})

describe('across replicas', () => {
  it('takes a lock only where the key holds nothing, and says what holds it otherwise', async () => {
    const redis = fakeRedis()
    const [one, two] = [new InFlight(redis.link), new InFlight(redis.link)]
    expect(await one.lock('k', 1000)).toBeNull()
    const held = await two.lock('k', 1000)
    expect(held).toBe(LOCKED)
    redis.values.set(readKey('k'), { value: 'an answer', until: Date.now() + 1000 })
    expect(await two.lock('k', 1000)).toBe('an answer')
    redis.up = false
    expect(await two.lock('k', 1000)).toBeUndefined()
  })

  it('gives a lock back only if it is still its own', async () => {
    const redis = fakeRedis()
    const [one, two] = [new InFlight(redis.link), new InFlight(redis.link)]
    await one.lock('k', 1000)
    two.unlock('k')
    await vi.advanceTimersByTimeAsync(0)
    expect(redis.values.has(readKey('k'))).toBe(true)
    one.unlock('k')
    await vi.advanceTimersByTimeAsync(0)
    expect(redis.values.has(readKey('k'))).toBe(false)
  })

  it('waits until the lock is replaced by the answer, or is gone', async () => {
    const redis = fakeRedis()
    const [one, two] = [new InFlight(redis.link), new InFlight(redis.link)]
    await one.lock('k', 1000)
    const landed = two.wait('k', scopeOf())
    await vi.advanceTimersByTimeAsync(50)
    redis.values.set(readKey('k'), { value: 'the answer', until: Date.now() + 60_000 })
    // Looks come later and later (10, 20, 40 ms … at most 160 ms apart).
    await vi.advanceTimersByTimeAsync(160)
    expect(await landed).toBe('the answer')
    // A holder that died: its lock ends with its time, and the waiter makes the read itself.
    await one.lock('j', 100)
    const gone = two.wait('j', scopeOf())
    await vi.advanceTimersByTimeAsync(300)
    expect(await gone).toBeUndefined()
  })

  it('stops every waiter when Redis goes down, and when its operation ends or reaches its deadline', async () => {
    const redis = fakeRedis()
    const [one, two] = [new InFlight(redis.link), new InFlight(redis.link)]
    await one.lock('k', 60_000)
    const ended = new AbortController()
    const waits = [
      two.wait('k', scopeOf()),
      two.wait('k', scopeOf({ signal: ended.signal })),
      two.wait('k', scopeOf({ deadline: Date.now() + 30 })),
    ]
    ended.abort()
    await vi.advanceTimersByTimeAsync(40)
    redis.up = false
    expect(await Promise.all(waits)).toEqual([undefined, undefined, undefined])
  })

  it('looks at every key it waits for in one MGET a round', async () => {
    const redis = fakeRedis()
    const [one, two] = [new InFlight(redis.link), new InFlight(redis.link)]
    for (const key of ['a', 'b', 'c']) await one.lock(key, 60_000)
    redis.commands.length = 0
    for (const key of ['a', 'b', 'c']) void two.wait(key, scopeOf())
    await vi.advanceTimersByTimeAsync(10)
    // The fake counts one GET each; RedisLink.get asks them in one MGET (redis.test.ts).
    expect(redis.commands).toEqual(['mget', 'mget', 'mget'])
  })
})
