import { Redis } from 'ioredis'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { bigList } from '../support/fixtures.js'
import {
  commandsSince,
  connectedWith,
  REDIS_SKIP_REASON,
  redisAvailable,
  startRedis,
} from '../support/redis.js'
import { type Client, startStack } from '../support/stack.js'
import { TRAVERSAL } from '../support/traversal.js'

/**
 * Sharing holds as replicas grow: four replicas on one Redis, five identical traversals at once on
 * each, cache cold, 40 ms upstream latency, make about the calls of one traversal, and Redis
 * works little for it: replicas waiting for a read are told when it lands (no polling). Counts
 * are the demo upstream's own log and Redis's own INFO commandstats (commands scripts run
 * counted too).
 */

const stack = await startStack({ cacheTtlSeconds: 300, upstreamToken: DEMO_TOKEN })
const { demo } = stack
const traverse = (replica: Client) =>
  replica.post(TRAVERSAL, { listId: bigList.id, companies: 40 }, { authorization: 'Bearer caller' })

describe.skipIf(!redisAvailable)(
  redisAvailable ? 'four replicas on one Redis' : `four replicas: skipped, ${REDIS_SKIP_REASON}`,
  async () => {
    const redis = redisAvailable ? await startRedis() : undefined
    afterAll(() => redis?.stop())

    it('five identical traversals at once on each of four replicas, cache cold: the calls of about one, at most 3 Redis commands per call', async () => {
      // One traversal's calls, on a replica of its own (cache cold, no Redis).
      const alone = await traverse(stack.replica())
      expect(alone.body.errors).toBeUndefined()
      const one = demo.calls().length
      expect(one).toBeGreaterThan(200)

      demo.reset()
      demo.latencyMs = 40
      const url = redis?.url ?? ''
      const replicas = await connectedWith(url, 8, () =>
        [1, 2, 3, 4].map(() => stack.replica({ redisUrl: url })),
      )
      const probe = new Redis(url)
      onTestFinished(() => probe.disconnect())
      await commandsSince(probe)
      const answers = await Promise.all(
        replicas.flatMap((replica) => Array.from({ length: 5 }, () => traverse(replica))),
      )
      const commands = await commandsSince(probe)
      for (const answer of answers) {
        expect(answer.body.errors).toBeUndefined()
        expect(answer.body.data).toEqual(alone.body.data)
      }
      const calls = demo.calls().length
      const total = Object.values(commands).reduce((sum, n) => sum + n, 0)
      // Printed when it fails: which commands, how many.
      expect({ calls, one, total, commands }).toSatisfy(
        () => calls <= 1.05 * one && total <= 3 * calls,
      )
      // Four replicas in one process, on a machine that may be busy: counts, not time, are checked.
    }, 60_000)

    it('one replica with UPSTREAM_RATE_LIMIT: lookup, lock and turn still at most 3 commands per call', async () => {
      // A Redis of its own: no other replica listens, as in a deployment of one.
      const own = await startRedis()
      onTestFinished(() => own.stop())
      const [replica] = await connectedWith(own.url, 2, () => [
        stack.replica({ redisUrl: own.url, upstreamRateLimit: 5000 }),
      ])
      if (!replica) throw new Error('no replica')
      // Scripts loaded, and its first answer told: it learns nobody else listens.
      await replica.post('{ lists(first: 1) { totalCount } }')
      demo.reset()
      const probe = new Redis(own.url)
      onTestFinished(() => probe.disconnect())
      await commandsSince(probe)
      expect((await traverse(replica)).body.errors).toBeUndefined()
      const commands = await commandsSince(probe)
      const calls = demo.calls().length
      const total = Object.values(commands).reduce((sum, n) => sum + n, 0)
      expect(calls).toBeGreaterThan(200)
      expect({ calls, total, commands }).toSatisfy(() => total <= 3 * calls)
    })
  },
)
