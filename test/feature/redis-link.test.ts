import { once } from 'node:events'
import { afterAll, describe, expect, it } from 'vitest'
import { RedisLink, RedisUnavailable } from '../../src/upstream/cache/redis.js'
import { REDIS_SKIP_REASON, redisAvailable, startRedis } from '../support/redis.js'

/**
 * The one breaker in front of Redis: a stalled or gone Redis is left alone after a few failures
 * in a row, but one late reply (a busy event loop, a slow network) does not stop the cache and
 * the sharing of reads across replicas for seconds.
 */

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
  },
)
