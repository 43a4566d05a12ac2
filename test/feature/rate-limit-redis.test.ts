import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { RedisLink } from '../../src/upstream/cache/redis.js'
import { UpstreamRateLimiter } from '../../src/upstream/rate-limit.js'
import { far, refusal, reserveMany } from '../support/rate-limit.js'
import {
  REDIS_SKIP_REASON,
  type RedisServer,
  redisAvailable,
  startRedis,
} from '../support/redis.js'

/**
 * UPSTREAM_RATE_LIMIT across replicas sharing Redis: one budget for all of them, a 429 pause
 * that reaches every replica, and each process's own budget when Redis is gone. Asserts on the
 * waits the limiter reserves, never on how long anything took.
 */

/** Why the Redis suites are skipped, in their titles when they are. */
const skipped = redisAvailable ? '' : ` (skipped: ${REDIS_SKIP_REASON})`
const never = new AbortController().signal

/** A connection as production makes it (fail fast, no offline queue), once it is ready. */
async function _connect(url: string): Promise<RedisLink> {
  const redis = new RedisLink(url)
  if (redis.client.status !== 'ready') await once(redis.client, 'ready')
  return redis
}

/** A connection as production makes it (fail fast, no offline queue), once it is ready. */
async function connect(url: string): Promise<RedisLink> {
  const redis = new RedisLink(url)
  if (redis.client.status !== 'ready') await once(redis.client, 'ready')
  return redis
}

describe.skipIf(!redisAvailable)(`with Redis${skipped}`, () => {
  let server: RedisServer
  const connections: RedisLink[] = []
  /** One replica: its own connection and limiter. */
  const replica = async (ratePerSecond?: number) => {
    const redis = await connect(server.url)
    connections.push(redis)
    const limiter = new UpstreamRateLimiter({ ratePerSecond, redis })
    return { redis, limiter }
  }
  let keys = 0
  /** A token key no other test uses. */
  const token = () => `token-${++keys}`

  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(async () => {
    for (const redis of connections) await redis.close()
    await server?.stop()
  })

  it('shares one budget between replicas', async () => {
    const a = (await replica(10)).limiter
    const b = (await replica(10)).limiter
    const key = token()
    const started = Date.now()
    // 30 turns, asked alternately by each replica.
    const waits: number[] = []
    for (let i = 0; i < 30; i++) waits.push(await (i % 2 === 0 ? a : b).reserve(key, far))
    const elapsed = Date.now() - started
    const sorted = [...waits].sort((x, y) => x - y)
    // 10 at once, then one per 100 ms: the 30th turn comes 2 s after the first (less whatever
    // time passed while they were being asked, which refills the bucket).
    const last = sorted[29] ?? 0
    expect(last).toBeLessThanOrEqual(2000)
    expect(last).toBeGreaterThanOrEqual(2000 - elapsed - 2)
    const atOnce = waits.filter((w) => w === 0).length
    expect(atOnce).toBeGreaterThanOrEqual(10)
    expect(atOnce).toBeLessThanOrEqual(10 + Math.ceil(elapsed / 100))
    // Each replica waited for the other's turns too: alone, 15 turns would end by 500 ms (here
    // too, less the time that passed while they were asked).
    expect(Math.max(...waits.filter((_, i) => i % 2 === 0))).toBeGreaterThan(1000 - elapsed)
    expect(Math.max(...waits.filter((_, i) => i % 2 === 1))).toBeGreaterThan(1000 - elapsed)
  })

  it('never delays one token for another’s saturation', async () => {
    const { limiter } = await replica(10)
    await reserveMany(limiter, token(), 25)
    expect(await limiter.reserve(token(), far)).toBe(0)
  })

  it('refuses a turn past the deadline and reserves nothing', async () => {
    const a = (await replica(1)).limiter
    const b = (await replica(1)).limiter
    const key = token()
    expect(await a.reserve(key, far)).toBe(0)
    const refused = await refusal(b.reserve(key, Date.now() + 100))
    expect(refused.waitMs).toBeGreaterThan(100)
    expect(refused.waitMs).toBeLessThanOrEqual(1000)
    // Not pushed back by the refused turn: the next one is no later than it would have been.
    expect(await a.reserve(key, far)).toBeLessThanOrEqual(refused.waitMs)
  })

  it('holds a token on every replica once one of them is told to pause', async () => {
    const a = (await replica(10)).limiter
    const b = (await replica(10)).limiter
    const key = token()
    const started = Date.now()
    await a.pause(key, started + 1500)
    const first = await b.reserve(key, far)
    const second = await b.reserve(key, far)
    const elapsed = Date.now() - started
    expect(first).toBeLessThanOrEqual(1500)
    expect(first).toBeGreaterThanOrEqual(1500 - elapsed - 2)
    // Held turns leave 1/rate apart after the pause.
    expect(second).toBeLessThanOrEqual(first + 100 + 1)
    expect(second).toBeGreaterThanOrEqual(first + 100 - elapsed - 2)
    expect(await b.reserve(token(), far)).toBe(0)
  })

  it('with no rate set: turns never touch Redis, and a pause still reaches every replica', async () => {
    const a = await replica()
    const b = await replica()
    // Both replicas' pause subscriptions are in place.
    const probe = await connect(server.url)
    connections.push(probe)
    await vi.waitFor(
      async () => {
        const [, subscribers] = (await probe.client.pubsub('NUMSUB', 'gw:rate:pause')) as [
          string,
          number,
        ]
        expect(subscribers).toBeGreaterThanOrEqual(2)
      },
      { timeout: 10_000 },
    )

    const sent = vi.spyOn(b.redis.client, 'sendCommand')
    const key = token()
    expect(await reserveMany(b.limiter, key, 100)).toEqual(Array(100).fill(0))
    await b.limiter.turn(key, far, never)
    expect(sent).not.toHaveBeenCalled()

    await a.limiter.pause(key, Date.now() + 5000)
    await vi.waitFor(async () => expect(await b.limiter.reserve(key, far)).toBeGreaterThan(0), {
      timeout: 10_000,
    })
    expect(await b.limiter.reserve(key, far)).toBeLessThanOrEqual(5000)
    expect(await b.limiter.reserve(token(), far)).toBe(0)
    expect(sent).not.toHaveBeenCalled()
    sent.mockRestore()
  })
})

describe.skipIf(!redisAvailable)(`when Redis goes away${skipped}`, () => {
  let server: RedisServer
  const connections: RedisLink[] = []
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(async () => {
    for (const redis of connections) await redis.close()
    await server?.stop()
  })

  it('keeps serving turns from the process’s own budget, mid-run and from the start', async () => {
    const a = await connect(server.url)
    const b = await connect(server.url)
    connections.push(a, b)
    const replicaA = new UpstreamRateLimiter({ ratePerSecond: 1, redis: a })
    const replicaB = new UpstreamRateLimiter({ ratePerSecond: 1, redis: b })
    // A takes the shared bucket's one turn: B's next turn comes a second later.
    let started = Date.now()
    expect(await replicaA.reserve('a', far)).toBe(0)
    const shared = await replicaB.reserve('a', far)
    expect(shared).toBeLessThanOrEqual(1000)
    expect(shared).toBeGreaterThanOrEqual(1000 - (Date.now() - started) - 2)

    await server.kill()
    // B now counts on its own: its own full bucket (one turn), then one per second.
    started = Date.now()
    await replicaB.turn('a', far, never)
    const own = await replicaB.reserve('a', far)
    expect(own).toBeLessThanOrEqual(1000)
    expect(own).toBeGreaterThanOrEqual(1000 - (Date.now() - started) - 2)

    // A replica starting while Redis is down serves too, and its pauses still hold locally.
    const late = new RedisLink(server.url)
    connections.push(late)
    for (const limiter of [
      new UpstreamRateLimiter({ ratePerSecond: 10, redis: late }),
      new UpstreamRateLimiter({ redis: late }),
    ]) {
      await limiter.turn('a', far, never)
      await limiter.pause('a', Date.now() + 60_000)
      expect(await limiter.reserve('a', far)).toBeGreaterThan(59_000)
    }
  })
})
