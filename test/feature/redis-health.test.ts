import { once } from 'node:events'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { RedisLink } from '../../src/upstream/redis.js'
import { type DelayProxy, startDelayProxy } from '../support/delay-proxy.js'
import {
  commandsSince,
  connectedWith,
  REDIS_SKIP_REASON,
  type RedisServer,
  redisAvailable,
  startRedis,
} from '../support/redis.js'
import { type Client, startStack } from '../support/stack.js'

/**
 * Redis is never what fails a request: unreachable from the start, stopped mid-run, slow or
 * frozen (SIGSTOP), every request is answered from the upstream and the process's own tier, and
 * once Redis answers again it is used again. While it is frozen, requests stop asking it: one
 * short timeout trips the one switch for every use (how long a request waits then:
 * test/unit/upstream/redis.test.ts, and `npm run bench -- --only=read-path`).
 */

const stack = await startStack({ cacheTtlSeconds: 300, upstreamToken: DEMO_TOKEN })
const { demo } = stack
const companies = demo.data.companies.slice(300, 400)
const nameOf = (c: (typeof companies)[number] | undefined) =>
  `{ company(country: ${c?.country}, number: "${c?.companyNumber}") { name } }`
/** The reads of companies `from` to `to` (one each), each answered as the upstream says. */
async function readsRight(replica: Client, from: number, to: number) {
  for (const company of companies.slice(from, to)) {
    const { body } = await replica.post(nameOf(company))
    expect(body).toEqual({
      data: { company: { name: company.name } },
      extensions: expect.anything(),
    })
  }
}

describe('Redis unreachable from the start', () => {
  it('serves as if there were no Redis: from the upstream, then the process’s own tier', async () => {
    const nowhere = stack.replica({ redisUrl: 'redis://127.0.0.1:1' })
    await readsRight(nowhere, 0, 3)
    const calls = demo.calls().length
    await readsRight(nowhere, 0, 3)
    expect(demo.calls()).toHaveLength(calls)
  })
})

describe.skipIf(!redisAvailable)(
  redisAvailable ? 'Redis failing under a replica' : `Redis failing: ${REDIS_SKIP_REASON}`,
  async () => {
    const redis: RedisServer | undefined = redisAvailable ? await startRedis() : undefined
    afterAll(() => redis?.stop())
    const url = redis?.url ?? ''
    const probe = () => {
      const client = new Redis(url)
      onTestFinished(() => client.disconnect())
      return client
    }
    const entries = async () => (await probe().keys('gw3:read:*')).length

    it('stopped mid-run: keeps serving, and uses Redis again once it is back', async () => {
      const [replica] = await connectedWith(url, 1, () => [stack.replica({ redisUrl: url })])
      if (!replica) throw new Error('no replica')
      await readsRight(replica, 0, 2)
      await redis?.kill()
      demo.reset()
      await readsRight(replica, 2, 4)
      expect(demo.calls()).toHaveLength(2)
      // What it read before answers from its own tier.
      await readsRight(replica, 0, 2)
      expect(demo.calls()).toHaveLength(2)
      await redis?.restart()
      // Reconnected on its own: what it reads now is stored in Redis again.
      await vi.waitFor(
        async () => {
          await readsRight(replica, 4, 5)
          expect(await entries()).toBeGreaterThan(0)
        },
        { timeout: 10_000 },
      )
    })

    it('frozen: every read is answered, Redis is left alone after one timeout, and is used again once it thaws', async () => {
      const [replica] = await connectedWith(url, 1, () => [stack.replica({ redisUrl: url })])
      if (!replica) throw new Error('no replica')
      await readsRight(replica, 0, 2)
      const client = probe()
      await commandsSince(client)
      redis?.freeze()
      onTestFinished(() => redis?.thaw())
      await readsRight(replica, 5, 15)
      redis?.thaw()
      // What the replica sent while Redis was frozen, run once it thawed: the lookup that met the
      // freeze, and what was under way with it; not a command per read.
      const sent = await commandsSince(client)
      const total = Object.values(sent).reduce((sum, n) => sum + n, 0)
      expect({ sent, total }).toSatisfy(() => total <= 6)
      await vi.waitFor(
        async () => {
          await readsRight(replica, 15, 16)
          const { country, companyNumber } = companies[15] ?? {}
          expect(await probe().keys(`gw3:read:*/${country}/${companyNumber}/*`)).toHaveLength(1)
        },
        { timeout: 10_000 },
      )
    })

    it('frozen while reads take their locks: once it thaws, no lock is left to make another replica wait', async () => {
      const [one, two] = await connectedWith(url, 2, () => [
        stack.replica({ redisUrl: url }),
        stack.replica({ redisUrl: url }),
      ])
      if (!one || !two) throw new Error('no replicas')
      demo.reset()
      const cold = companies.slice(40, 80)
      const reads = cold.map((company) => one.post(nameOf(company)))
      // Some locks taken, others on the wire when Redis stops answering.
      await demo.waitForCalls((calls) => calls.length >= 1)
      redis?.freeze()
      onTestFinished(() => redis?.thaw())
      await new Promise((resolve) => setTimeout(resolve, 400))
      redis?.thaw()
      for (const { body } of await Promise.all(reads)) expect(body.errors).toBeUndefined()
      // Each lock met by the freeze is given back right behind it (a lock lasts 11 s otherwise).
      const client = probe()
      await vi.waitFor(async () => {
        const values = await Promise.all(
          (await client.keys('gw3:read:*')).map((k) => client.get(k)),
        )
        expect(values.filter((v) => v?.startsWith('\0'))).toEqual([])
      })
      const started = Date.now()
      await readsRight(two, 40, 80)
      expect(Date.now() - started).toBeLessThan(11_000)
    })

    it('slow (60 ms each way): never fails a read, and shares what it reads', async () => {
      let proxy: DelayProxy | undefined
      onTestFinished(() => proxy?.close())
      proxy = await startDelayProxy(redis?.port ?? 0, 60)
      const slow = await connectedWith(url, 2, () => [
        stack.replica({ redisUrl: proxy?.url }),
        stack.replica({ redisUrl: proxy?.url }),
      ])
      const [one, two] = slow
      if (!one || !two) throw new Error('no replicas')
      await readsRight(one, 16, 20)
      await readsRight(two, 16, 20)
    })

    it('one busy moment of the event loop, with commands in flight, does not trip it', async () => {
      const link = new RedisLink(url)
      onTestFinished(() => link.close())
      if (!link.available) await once(link.client, 'ready')
      const inFlight = [1, 2, 3].map((i) => link.run((c) => c.get(`k${i}`)).catch((e: Error) => e))
      // The event loop busy for 300 ms (a large answer serialized, a GC pause): the commands'
      // timers fire once it frees up, their replies not read yet.
      const until = Date.now() + 300
      while (Date.now() < until) {
        // busy
      }
      expect(await Promise.all(inFlight)).toEqual([null, null, null])
      expect(link.available).toBe(true)
    })
  },
)
