import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import type { GatewayConfig } from '../../src/gateway.js'
import { type DelayProxy, mostExchanges, startDelayProxy } from '../support/delay-proxy.js'
import { connectedWith, REDIS_SKIP_REASON, redisAvailable, startRedis } from '../support/redis.js'
import { startStack } from '../support/stack.js'

/**
 * A slow Redis is paid once per read, not once per thing a read asks of it: a cache miss (or the
 * refresh of an expired entry) asks Redis one round trip before its upstream call (lookup, lock
 * and rate turn together) and one after it (store and announce). Redis sits behind a proxy that holds every chunk 60 ms each way
 * (a 120 ms round trip, under the 200 ms Redis timeout); the proxy counts the round trips.
 */

const stack = await startStack({ cacheTtlSeconds: 300, upstreamToken: DEMO_TOKEN })
const { demo } = stack
const [warm, cold, warmRated, coldRated, expiring] = demo.data.lists
const nameOf = (list: { id: number } | undefined) => `{ list(listId: ${list?.id}) { name } }`

describe.skipIf(!redisAvailable)(
  redisAvailable ? 'Redis 60 ms away each way' : `slow Redis: skipped, ${REDIS_SKIP_REASON}`,
  async () => {
    const redis = redisAvailable ? await startRedis() : undefined
    afterAll(() => redis?.stop())
    const proxies: DelayProxy[] = []
    afterAll(() => Promise.all(proxies.map((proxy) => proxy.close())))

    /** A replica on Redis through the proxy, once it has read `first` (scripts loaded and all). */
    async function slowReplica(first: string, settings: Partial<GatewayConfig> = {}) {
      const proxy = await startDelayProxy(redis?.port ?? 0, 60)
      proxies.push(proxy)
      const replica = await connectedWith(redis?.url ?? '', 2, () =>
        stack.replica({ redisUrl: proxy.url, ...settings }),
      )
      expect((await replica.post(first)).body.errors).toBeUndefined()
      return { replica, proxy }
    }

    /** The round trips a miss of `query` made before its upstream call, and after it. */
    async function roundTrips(
      query: string,
      path: string,
      slow: Awaited<ReturnType<typeof slowReplica>>,
    ) {
      demo.reset()
      // What the replica still had under way with Redis (a catch-up read as it subscribed) is
      // not this miss's.
      await slow.proxy.idle()
      const started = slow.proxy.exchanges()
      const held = demo.hold(path)
      const answer = slow.replica.post(query)
      await demo.waitForCalls((calls) => calls.length === 1)
      const sent = slow.proxy.exchanges()
      const before = mostExchanges(started, sent)
      held.release()
      expect((await answer).body.errors).toBeUndefined()
      const after = mostExchanges(sent, slow.proxy.exchanges())
      // It went through Redis: its answer is stored there.
      const direct = new Redis(redis?.url ?? '')
      onTestFinished(() => direct.disconnect())
      expect(await direct.keys(`gw:reads:*${path}`)).toHaveLength(1)
      return { before, after }
    }

    it('a cache miss: one round trip before its upstream call (lookup and lock), one after (store and announce)', async () => {
      const slow = await slowReplica(nameOf(warm))
      expect(await roundTrips(nameOf(cold), `/v1/lists/${cold?.id}`, slow)).toEqual({
        before: 1,
        after: 1,
      })
    })

    it('with UPSTREAM_RATE_LIMIT: still one before (lookup, lock and rate turn in one script), one after', async () => {
      const slow = await slowReplica(nameOf(warmRated), { upstreamRateLimit: 100 })
      expect(await roundTrips(nameOf(coldRated), `/v1/lists/${coldRated?.id}`, slow)).toEqual({
        before: 1,
        after: 1,
      })
    })

    it('a refresh of an entry past its TTL, still kept for stale-if-error: one round trip before its call', async () => {
      const slow = await slowReplica(nameOf(warm), { cacheTtlSeconds: 1, cacheStaleSeconds: 3600 })
      const query = nameOf(expiring)
      expect((await slow.replica.post(query)).body.errors).toBeUndefined()
      await sleep(1100)
      expect(await roundTrips(query, `/v1/lists/${expiring?.id}`, slow)).toEqual({
        before: 1,
        after: 1,
      })
    })
  },
)
