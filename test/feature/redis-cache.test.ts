import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { InFlight } from '../../src/upstream/in-flight.js'
import { companyArgs, michiels } from '../support/fixtures.js'
import {
  commandsSince,
  connectedWith,
  REDIS_SKIP_REASON,
  type RedisServer,
  redisAvailable,
  startRedis,
} from '../support/redis.js'
import { costOf, demoToken, startStack } from '../support/stack.js'

/**
 * The cache of reads shared by replicas on one Redis: what one replica read serves the others,
 * isolated per token, an entry this version cannot read replaced, the upstream's Cache-Control
 * kept, and a no-cache refresh on one replica what the others answer next. Every count is the
 * demo upstream's own log or Redis's own INFO commandstats.
 */

const stack = await startStack({ cacheTtlSeconds: 300, cacheStaleSeconds: 60 })
const redis: RedisServer | undefined = redisAvailable ? await startRedis() : undefined
afterAll(() => redis?.stop())
const { demo } = stack
const noCache = { ...demoToken, 'cache-control': 'no-cache' }
const companyPage = `{ company(${companyArgs(michiels)}) {
  name financials(first: 2) { nodes { endDate } } lookalikes(first: 2) { edges { score } } } }`

describe.skipIf(!redisAvailable)(
  redisAvailable ? 'replicas sharing a cache' : `replicas sharing a cache: ${REDIS_SKIP_REASON}`,
  () => {
    const url = redis?.url ?? ''
    /** `count` gateways on the shared Redis, once connected to it. */
    const replicas = (count: number) =>
      connectedWith(url, count, () =>
        Array.from({ length: count }, () => stack.replica({ redisUrl: url })),
      )
    const direct = () => {
      const client = new Redis(url)
      onTestFinished(() => client.disconnect())
      return client
    }

    it('serves on one replica what another read, and on a replica started after it', async () => {
      const [one, two] = await replicas(2)
      const first = await one?.post(companyPage)
      expect(first?.body.errors).toBeUndefined()
      expect(demo.calls().length).toBeGreaterThan(0)
      demo.reset()
      const second = await two?.post(companyPage)
      expect(second?.body.data).toEqual(first?.body.data)
      expect(demo.calls()).toEqual([])
      expect(costOf(second?.body ?? { status: 0 }).cacheHits).toBeGreaterThan(0)
      const [third] = await replicas(1)
      for (const replica of [two, two, third, third]) {
        expect((await replica?.post(companyPage))?.body.data).toEqual(first?.body.data)
      }
      expect(demo.calls()).toEqual([])
    })

    it('keeps no token in Redis: keys hold a keyed hash, under this version’s prefix', async () => {
      const keys = await direct().keys('*')
      expect(keys.length).toBeGreaterThan(0)
      for (const key of keys) {
        expect(key).not.toContain('demo-token')
        expect(key.startsWith('gw3:')).toBe(true)
      }
    })

    it('never serves what one token read to another', async () => {
      const [one, two] = await replicas(2)
      const [list] = demo.data.lists
      const query = `{ list(listId: ${list?.id}) { name } }`
      expect((await one?.post(query))?.body.errors).toBeUndefined()
      demo.reset()
      const other = await two?.post(query, {}, { authorization: 'Bearer bob-token' })
      expect(other?.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED')
      expect(demo.calls().map((c) => c.token)).toEqual(['bob-token'])
    })

    it('reads past what it cannot use in Redis (an older version’s entry, something unreadable) once, and replaces it', async () => {
      const [, , sixth] = demo.data.lists.slice(3)
      const query = `{ list(listId: ${sixth?.id}) { name } }`
      const [one] = await replicas(1)
      expect((await one?.post(query))?.body.errors).toBeUndefined()
      const client = direct()
      const [key = ''] = await client.keys(`gw3:read:*/v1/lists/${sixth?.id}`)
      // An older version's entry, under its own prefix: never read now.
      const json = JSON.stringify({ data: [{ ...sixth, name: 'old name' }] })
      await client.set(`gw:reads:2:${key.slice('gw3:read:'.length)}`, `0 0 ${json}`, 'PX', 60_000)
      for (const unusable of [undefined, 'not an entry']) {
        if (unusable) await client.set(key, unusable, 'PX', 60_000)
        else await client.del(key)
        demo.reset()
        const [fresh] = await replicas(1)
        expect((await fresh?.post(query))?.body.data).toEqual({ list: { name: sixth?.name } })
        expect(demo.calls()).toHaveLength(1)
        expect(await client.get(key)).toContain(`"name":${JSON.stringify(sixth?.name)}`)
      }
    })

    it('keeps the upstream’s max-age on the replica that waited for another’s read', async () => {
      const [one, two] = await replicas(2)
      const [, , , fourth] = demo.data.lists
      const query = `{ list(listId: ${fourth?.id}) { name } }`
      demo.inject({ path: `/v1/lists/${fourth?.id}`, headers: { 'cache-control': 'max-age=2' } })
      const waited = vi.spyOn(InFlight.prototype, 'wait')
      onTestFinished(() => waited.mockRestore())
      const held = demo.hold(`/v1/lists/${fourth?.id}`)
      const answers = [one?.post(query), two?.post(query)]
      await demo.waitForCalls((calls) => calls.length >= 1)
      await vi.waitFor(() => expect(waited).toHaveBeenCalled(), { timeout: 10_000 })
      held.release()
      await Promise.all(answers)
      expect(demo.calls()).toHaveLength(1)
      // Past max-age, with Redis gone: each replica's own copy has expired too, the waiter's as
      // well (a copy kept for the default 300 s would answer).
      await sleep(2100)
      await redis?.kill()
      onTestFinished(() => redis?.restart())
      demo.reset()
      await one?.post(query)
      await two?.post(query)
      expect(demo.calls()).toHaveLength(2)
    })

    it('a no-cache refresh on one replica is what the others answer next, with no upstream call of theirs', async () => {
      const [one, two] = await replicas(2)
      const [list] = demo.data.lists
      const query = `{ list(listId: ${list?.id}) { name } }`
      for (const replica of [one, two]) await replica?.post(query, {}, noCache)
      expect((await two?.post(query))?.body.data).toEqual({ list: { name: list?.name } })
      demo.reset()
      const renamed = `${list?.name} (renamed)`
      demo.inject({
        path: `/v1/lists/${list?.id}`,
        transform: (json) => {
          for (const entry of (json as { data: { name: string }[] }).data) entry.name = renamed
          return json
        },
      })
      const client = direct()
      await commandsSince(client)
      const fresh = await one?.post(query, {}, noCache)
      expect(fresh?.body.data).toEqual({ list: { name: renamed } })
      // The refresh: no lookup, no lock, its answer stored.
      expect(await commandsSince(client)).toEqual({ set: 1 })
      // Two looks at Redis again within a second of holding its copy.
      await vi.waitFor(
        async () =>
          expect((await two?.post(query))?.body.data).toEqual({ list: { name: renamed } }),
        { timeout: 10_000 },
      )
      expect(demo.calls()).toHaveLength(1)
    })

    it.each([
      ['the upstream no longer has it (404)', { status: 404 }, 'NOT_FOUND'],
      [
        'the upstream says not to keep it (no-store)',
        { headers: { 'cache-control': 'no-store' } },
        undefined,
      ],
    ] as const)(
      'a refresh that learns %s removes the entry everywhere',
      async (_what, fault, code) => {
        const [one, two] = await replicas(2)
        const list = demo.data.lists[1]
        const query = `{ list(listId: ${list?.id}) { name } }`
        for (const replica of [one, two]) await replica?.post(query)
        demo.reset()
        demo.inject({ path: `/v1/lists/${list?.id}`, times: 1, ...fault })
        const fresh = await one?.post(query, {}, noCache)
        expect(fresh?.body.errors?.map((e) => e.extensions?.code)).toEqual(
          code ? [code] : undefined,
        )
        // The other replica reads the upstream again (the fault is spent): neither its copy nor
        // Redis serves the entry the refresh found gone.
        const reads = () => demo.calls().filter((c) => c.path === `/v1/lists/${list?.id}`).length
        await vi.waitFor(
          async () => {
            await two?.post(query)
            expect(reads()).toBe(2)
          },
          { timeout: 10_000 },
        )
      },
    )
  },
)
