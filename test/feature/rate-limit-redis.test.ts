import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Answer, Begins } from '../../src/upstream/begin.js'
import { RedisLink } from '../../src/upstream/cache/redis.js'
import { UpstreamRateLimiter } from '../../src/upstream/rate-limit.js'
import { far, go, takeMany } from '../support/rate-limit.js'
import {
  REDIS_SKIP_REASON,
  type RedisServer,
  redisAvailable,
  startRedis,
} from '../support/redis.js'

/**
 * UPSTREAM_RATE_LIMIT and CALLER_RATE_LIMIT across replicas sharing Redis, as the script every
 * request runs before it is sent takes turns (src/upstream/begin.ts): one budget for all of
 * them, one reserved turn per caller over all of them, a 429 pause that reaches every replica,
 * and each process's own budget when Redis is gone. Asserts on the turns Redis gives, never on
 * how long anything took.
 */

/** Why the Redis suites are skipped, in their titles when they are. */
const skipped = redisAvailable ? '' : ` (skipped: ${REDIS_SKIP_REASON})`

/** A connection as production makes it (fail fast, no offline queue), once it is ready. */
async function connect(url: string): Promise<RedisLink> {
  const redis = new RedisLink(url)
  if (redis.client.status !== 'ready') await once(redis.client, 'ready')
  return redis
}

/** `caller`'s turn with `token`, as Redis gives it to a replica. */
async function turn(begins: Begins, token: string, caller: string, maxWaitMs = far) {
  const answer = await begins.ask({ turn: { tokenKey: token, callerKey: caller, maxWaitMs } })
  if (!answer) throw new Error('Redis did not answer')
  return answer
}

const waitOf = (answer: Answer) => ('waitMs' in answer ? answer.waitMs : 0)

describe.skipIf(!redisAvailable)(`with Redis${skipped}`, () => {
  let server: RedisServer
  const connections: RedisLink[] = []
  /** One replica: its own connection, limiter and script. */
  const replica = async (ratePerSecond?: number, callerRatePerSecond?: number) => {
    const redis = await connect(server.url)
    connections.push(redis)
    const limiter = new UpstreamRateLimiter({ ratePerSecond, callerRatePerSecond, redis })
    return {
      redis,
      limiter,
      begins: new Begins(redis, limiter, `replica ${connections.length}`),
    }
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
    const a = (await replica(10)).begins
    const b = (await replica(10)).begins
    const key = token()
    const started = Date.now()
    // 30 callers, one turn each, asked alternately on each replica.
    const turns: Answer[] = []
    for (let i = 0; i < 30; i++) turns.push(await turn(i % 2 === 0 ? a : b, key, `caller ${i}`))
    const elapsed = Date.now() - started
    const waits = turns.map(waitOf)
    const sorted = [...waits].sort((x, y) => x - y)
    // 10 at once, then one per 100 ms: the 30th turn comes 2 s after the first (less whatever
    // time passed while they were being asked, which refills the bucket).
    const last = sorted[29] ?? 0
    expect(last).toBeLessThanOrEqual(2000)
    expect(last).toBeGreaterThanOrEqual(2000 - elapsed - 2)
    const atOnce = turns.filter((t) => t.kind === 'go').length
    expect(atOnce).toBeGreaterThanOrEqual(10)
    expect(atOnce).toBeLessThanOrEqual(10 + Math.ceil(elapsed / 100))
    // Each replica's callers waited for the other's turns too: alone, 15 turns would end by 500 ms.
    expect(Math.max(...waits.filter((_, i) => i % 2 === 0))).toBeGreaterThan(1000 - elapsed)
    expect(Math.max(...waits.filter((_, i) => i % 2 === 1))).toBeGreaterThan(1000 - elapsed)
  })

  it('reserves one turn per caller at a time over every replica: a burst cannot take the next ten', async () => {
    const a = (await replica(10)).begins
    const b = (await replica(10)).begins
    const key = token()
    const started = Date.now()
    for (let i = 0; i < 10; i++) await turn(i % 2 === 0 ? a : b, key, 'heavy')
    // The heavy caller's next turn is reserved; its further reads, on either replica, wait for it.
    const heavy = [
      await turn(a, key, 'heavy'),
      await turn(b, key, 'heavy'),
      await turn(a, key, 'heavy'),
    ]
    const light = await turn(b, key, 'light')
    const elapsed = Date.now() - started
    expect(heavy.map((t) => t.kind)).toEqual(['later', 'later', 'later'])
    for (const t of heavy) expect(waitOf(t)).toBeLessThanOrEqual(100)
    // The light caller's turn is the one after it, not after the heavy caller's backlog.
    expect(light.kind).toBe('later')
    expect(waitOf(light)).toBeLessThanOrEqual(200)
    expect(waitOf(light)).toBeGreaterThanOrEqual(200 - elapsed - 2)
  })

  it('holds a caller to CALLER_RATE_LIMIT over every replica and every token', async () => {
    const a = (await replica(undefined, 2)).begins
    const b = (await replica(undefined, 2)).begins
    expect((await turn(a, token(), 'caller')).kind).toBe('go')
    expect((await turn(b, token(), 'caller')).kind).toBe('go')
    const third = await turn(a, token(), 'caller')
    expect(third.kind).toBe('later')
    expect(waitOf(third)).toBeLessThanOrEqual(500)
    expect((await turn(b, token(), 'another caller')).kind).toBe('go')
  })

  it('never delays one token for another’s saturation', async () => {
    const { begins } = await replica(10)
    const key = token()
    for (let i = 0; i < 25; i++) await turn(begins, key, `caller ${i}`)
    expect(await turn(begins, token(), 'caller 0')).toEqual({ kind: 'go' })
  })

  it('refuses a turn past the deadline and reserves nothing', async () => {
    const a = (await replica(1)).begins
    const b = (await replica(1)).begins
    const key = token()
    expect((await turn(a, key, 'one')).kind).toBe('go')
    const refused = await turn(b, key, 'two', 100)
    expect(refused.kind).toBe('tooLate')
    expect(waitOf(refused)).toBeGreaterThan(100)
    expect(waitOf(refused)).toBeLessThanOrEqual(1000)
    // Not pushed back by the refused turn: the next one is no later than it would have been.
    expect(waitOf(await turn(a, key, 'three'))).toBeLessThanOrEqual(waitOf(refused))
  })

  it('holds a token on every replica once one of them is told to pause', async () => {
    const a = await replica(10)
    const b = await replica(10)
    await subscribed(a.redis, connections.length)
    const key = token()
    const started = Date.now()
    await a.limiter.pause(key, started + 1500)
    // Heard on the other replica: its reads of the token wait in their lanes until then.
    await vi.waitFor(() => expect(b.limiter.pausedUntil(key)).toBeDefined(), { timeout: 10_000 })
    // The pause crosses as a duration (replicas' clocks may differ), applied when heard: it ends
    // no earlier than on the replica told, and no later than 1500 ms after b heard it.
    const heard = Date.now()
    expect(b.limiter.pausedUntil(key)).toBeGreaterThanOrEqual(started + 1500 - 1)
    expect(b.limiter.pausedUntil(key)).toBeLessThanOrEqual(heard + 1500 + 1)
    // In Redis, the turns held back leave 1/rate apart after the pause.
    const first = waitOf(await turn(b.begins, key, 'one'))
    const second = waitOf(await turn(b.begins, key, 'two'))
    const elapsed = Date.now() - started
    expect(first).toBeLessThanOrEqual(1500)
    expect(first).toBeGreaterThanOrEqual(1500 - elapsed - 2)
    expect(second).toBeLessThanOrEqual(first + 100 + 1)
    expect(second).toBeGreaterThanOrEqual(first + 100 - elapsed - 2)
    expect(await turn(b.begins, token(), 'one')).toEqual({ kind: 'go' })
  })

  it('with no rate set: turns never touch Redis, and a pause still reaches every replica', async () => {
    const a = await replica()
    const b = await replica()
    await subscribed(a.redis, connections.length)
    expect(b.limiter.redis).toBeUndefined()
    const sent = vi.spyOn(b.redis.client, 'sendCommand')
    const key = token()
    expect(takeMany(b.limiter, key, 'one', 100)).toEqual(Array(100).fill(go))
    expect(sent).not.toHaveBeenCalled()

    await a.limiter.pause(key, Date.now() + 5000)
    await vi.waitFor(() => expect(b.limiter.takeLocally(key, 'one', far).kind).toBe('later'), {
      timeout: 10_000,
    })
    expect(b.limiter.pausedUntil(key)).toBeLessThanOrEqual(Date.now() + 5000)
    expect(b.limiter.takeLocally(token(), 'one', far)).toEqual(go)
    expect(sent).not.toHaveBeenCalled()
    sent.mockRestore()
  })

  it('holds a token on a replica that starts after the pause was told', async () => {
    const a = await replica()
    const key = token()
    await a.limiter.pause(key, Date.now() + 60_000)
    // Started afterwards: the message is gone, the pause is read from Redis when it subscribes.
    const late = await replica()
    await vi.waitFor(() => expect(late.limiter.pausedUntil(key)).toBeDefined(), {
      timeout: 10_000,
    })
    expect(late.limiter.pausedUntil(key)).toBeGreaterThan(Date.now() + 50_000)
    expect(late.limiter.pausedUntil(token())).toBeUndefined()
  })

  /** Until `count` replicas (every one made so far) listen for pauses. */
  async function subscribed(redis: RedisLink, count: number) {
    await vi.waitFor(
      async () => {
        const [, listening] = (await redis.client.pubsub('NUMSUB', 'gw:rate:pause')) as [
          string,
          number,
        ]
        expect(listening).toBeGreaterThanOrEqual(count)
      },
      { timeout: 10_000 },
    )
  }
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
    const limiterA = new UpstreamRateLimiter({ ratePerSecond: 1, redis: a })
    const limiterB = new UpstreamRateLimiter({ ratePerSecond: 1, redis: b })
    const replicaA = new Begins(a, limiterA, 'a')
    const replicaB = new Begins(b, limiterB, 'b')
    // A takes the shared bucket's one turn: B's caller's turn comes a second later.
    expect(await turn(replicaA, 'a', 'one')).toEqual({ kind: 'go' })
    expect((await turn(replicaB, 'a', 'two')).kind).toBe('later')

    await server.kill()
    // Redis answers nothing now (src/upstream/gate.ts then asks the process's own budget): B
    // counts on its own, its own full bucket (one turn), then one per second.
    expect(await replicaB.ask({ turn: { tokenKey: 'a', callerKey: 'two', maxWaitMs: far } })).toBe(
      undefined,
    )
    expect(takeMany(limiterB, 'a', 'two', 2).map((t) => t.kind)).toEqual(['go', 'later'])

    // A replica starting while Redis is down serves too, and its pauses still hold locally.
    const late = new RedisLink(server.url)
    connections.push(late)
    for (const limiter of [
      new UpstreamRateLimiter({ ratePerSecond: 10, redis: late }),
      new UpstreamRateLimiter({ redis: late }),
    ]) {
      expect(limiter.takeLocally('a', 'one', far)).toEqual(go)
      await limiter.pause('a', Date.now() + 60_000)
      const paused = limiter.takeLocally('a', 'one', far)
      expect(paused.kind === 'later' && paused.waitMs).toBeGreaterThan(59_000)
    }
  })
})
