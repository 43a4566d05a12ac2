import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { REDIS_DOWN, RedisLink, TIMEOUT_MS } from '../../../src/upstream/redis.js'

/**
 * The one Redis connection's health switch (src/upstream/redis.ts) on a fake clock, with ioredis
 * replaced by a client that answers, freezes or drops as the test says: one unanswered command
 * trips it for every use, a request pays one short timeout at most, the first after a freeze and
 * the probes included, and Redis is used again once a background PING is answered.
 */

const { clients, FakeClient } = await vi.hoisted(async () => {
  const { EventEmitter } = await import('node:events')
  const clients: FakeClient[] = []
  class FakeClient extends EventEmitter {
    status = 'connecting'
    frozen = false
    mgets: string[][] = []
    pings = 0
    constructor() {
      super()
      clients.push(this)
    }
    defineCommand() {}
    private answer<T>(value: T): Promise<T> {
      return this.frozen ? new Promise(() => {}) : Promise.resolve(value)
    }
    mget(keys: string[]) {
      this.mgets.push(keys)
      return this.answer(keys.map((key) => `value of ${key}`))
    }
    ping() {
      this.pings++
      return this.answer('PONG')
    }
    ready() {
      this.status = 'ready'
      this.emit('ready')
    }
    disconnect() {
      this.status = 'end'
      this.emit('close')
    }
  }
  return { clients, FakeClient }
})
type FakeClient = InstanceType<typeof FakeClient>
vi.mock('ioredis', () => ({ Redis: FakeClient }))

beforeEach(() => {
  vi.useFakeTimers()
  clients.length = 0
})
afterEach(() => {
  vi.useRealTimers()
})

/** A link whose connection is ready, and what it tells. */
function connected() {
  const failed = vi.fn()
  const link = new RedisLink('redis://fake', undefined, failed)
  const client = clients.at(-1) as FakeClient
  client.ready()
  const events: string[] = []
  link.onDown.push(() => events.push('down'))
  return { link, client, events, failed }
}

describe('the health switch', () => {
  it('is off until the connection is ready: nothing waits for a Redis that is not there', async () => {
    const link = new RedisLink('redis://fake')
    expect(link.available).toBe(false)
    await expect(link.run((c) => c.ping())).rejects.toBe(REDIS_DOWN)
    expect(await link.get('k')).toBeUndefined()
  })

  it('asks the GETs of one tick in one MGET', async () => {
    const { link, client } = connected()
    const values = Promise.all(['a', 'b', 'c'].map((key) => link.get(key)))
    await vi.advanceTimersByTimeAsync(0)
    expect(await values).toEqual(['value of a', 'value of b', 'value of c'])
    expect(client.mgets).toEqual([['a', 'b', 'c']])
  })

  it('trips when a command goes unanswered: it and every command under way stop waiting then, later ones at once', async () => {
    const { link, client, events, failed } = connected()
    client.frozen = true
    const first = link.run((c) => c.ping()).catch((e) => e)
    await vi.advanceTimersByTimeAsync(100)
    const second = link.get('k')
    await vi.advanceTimersByTimeAsync(TIMEOUT_MS - 100 + 1)
    expect(await first).toBe(REDIS_DOWN)
    // The second waited what was left of the first's timeout, no more.
    expect(await second).toBeUndefined()
    expect(events).toEqual(['down'])
    const started = Date.now()
    await expect(link.run((c) => c.ping())).rejects.toBe(REDIS_DOWN)
    expect(Date.now()).toBe(started)
    expect(failed).toHaveBeenCalled()
  })

  it('probes in the background once a second, never through a request, and is used again once answered', async () => {
    const { link, client, events } = connected()
    client.frozen = true
    void link.run((c) => c.ping()).catch(() => {})
    await vi.advanceTimersByTimeAsync(TIMEOUT_MS)
    const pingsAtTrip = client.pings
    // Still frozen: one probe a second, each given up after a short timeout.
    await vi.advanceTimersByTimeAsync(3000)
    expect(client.pings - pingsAtTrip).toBeGreaterThanOrEqual(2)
    expect(link.available).toBe(false)
    client.frozen = false
    await vi.advanceTimersByTimeAsync(1200)
    expect(link.available).toBe(true)
    expect(events).toEqual(['down'])
  })

  it('trips at once when the connection drops, and is back when it is ready again', async () => {
    const { link, client, events } = connected()
    client.status = 'reconnecting'
    client.emit('close')
    expect(link.available).toBe(false)
    client.ready()
    expect(link.available).toBe(true)
    expect(events).toEqual(['down'])
  })

  it('a command that fails without Redis being gone fails alone', async () => {
    const { link } = connected()
    await expect(link.run(async () => Promise.reject(new Error('WRONGTYPE')))).rejects.toThrow(
      'WRONGTYPE',
    )
    expect(link.available).toBe(true)
  })
})
