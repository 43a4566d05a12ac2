import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { RedisLink, RedisUnavailable } from '../../src/upstream/cache/redis.js'
import {
  commandsSince,
  connectedWith,
  REDIS_SKIP_REASON,
  redisAvailable,
  startRedis,
} from '../support/redis.js'
import { startStack } from '../support/stack.js'

/**
 * The one breaker in front of Redis: a stalled or gone Redis is left alone after a few failures
 * in a row, but one late reply (a busy event loop, a slow network) does not stop the cache and
 * the sharing of reads across replicas for seconds. The last two cases were found by the third
 * hostile review of issue 21.
 */

const stack = await startStack({ cacheTtlSeconds: 300, upstreamToken: DEMO_TOKEN })
const { demo } = stack
const nameOf = (id: number | undefined) => `{ list(listId: ${id}) { name } }`

const late = () => Promise.reject(new Error('Command timed out'))

describe.skipIf(!redisAvailable)(
  redisAvailable ? 'the Redis breaker' : `the Redis breaker: skipped, ${REDIS_SKIP_REASON}`,
  async () => {
    const redis = redisAvailable ? await startRedis() : undefined
    afterAll(() => redis?.stop())
    const links: RedisLink[] = []
    afterAll(() => Promise.all(links.map((link) => link.close())))
    const connect = async () => {
      const link = new RedisLink(redis?.url ?? '')
      links.push(link)
      if (link.client.status !== 'ready') await once(link.client, 'ready')
      return link
    }

    it('stays closed after one late reply, and after two with a success between', async () => {
      const link = await connect()
      await expect(link.guard(late)).rejects.toThrow('timed out')
      expect(await link.guard(() => link.client.ping())).toBe('PONG')
      await expect(link.guard(late)).rejects.toThrow('timed out')
      await expect(link.guard(late)).rejects.toThrow('timed out')
      expect(await link.guard(() => link.client.ping())).toBe('PONG')
    })

    it('opens after three failures in a row: Redis is then left alone', async () => {
      const link = await connect()
      for (let i = 0; i < 3; i++) await expect(link.guard(late)).rejects.toThrow('timed out')
      let asked = false
      await expect(
        link.guard(() => {
          asked = true
          return link.client.ping()
        }),
      ).rejects.toBeInstanceOf(RedisUnavailable)
      expect(asked).toBe(false)
    })

    it('a stalled Redis (connection up, no replies) is left alone after 3 failures, though each miss also stores', async () => {
      const replica = await connectedWith(redis?.url ?? '', 2, () =>
        stack.replica({ redisUrl: redis?.url }),
      )
      const { lists } = demo.data
      expect((await replica.post(nameOf(lists[0]?.id))).body.errors).toBeUndefined()
      const probe = new Redis(redis?.url ?? '')
      onTestFinished(() => probe.disconnect())
      await commandsSince(probe)
      const stallMs = 8000
      await probe.call('CLIENT', 'PAUSE', String(stallMs), 'ALL')
      const stalledAt = Date.now()
      for (const list of lists.slice(1, 10)) {
        expect((await replica.post(nameOf(list.id))).body.errors).toBeUndefined()
      }
      // What the replica sent, which Redis runs once the stall ends. Its first miss meets the
      // stall; once open, the breaker leaves Redis alone 5 s whether the stall has ended or not,
      // so the count does not depend on how long the misses took.
      await sleep(Math.max(0, stalledAt + stallMs - Date.now()) + 500)
      const sent = await commandsSince(probe)
      const total = Object.entries(sent)
        .filter(([name]) => !name.startsWith('client'))
        .reduce((sum, [, n]) => sum + n, 0)
      // Open after 3 failures (a lookup, a store's SET and PUBLISH): not 3 commands per miss.
      expect({ sent, total }).toSatisfy(() => total <= 6)
    }, 30_000)

    it('one busy moment of the event loop, with several commands in flight, does not open it', async () => {
      const link = await connect()
      const inFlight = [1, 2, 3].map((i) =>
        link.guard(() => link.client.get(`k${i}`)).catch((error: Error) => error.message),
      )
      // The event loop busy for 300 ms (a large answer serialized, a GC pause): the three
      // commands' timers fire together once it frees up, their replies unread.
      const until = Date.now() + 300
      while (Date.now() < until) {
        // busy
      }
      await Promise.all(inFlight)
      expect(await link.guard(() => link.client.ping())).toBe('PONG')
    })
  },
)
