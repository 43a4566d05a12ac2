import { Redis } from 'ioredis'
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { READS_CHANNEL } from '../../src/upstream/cache/shared-reads.js'
import {
  commandsSince,
  connectedWith,
  REDIS_SKIP_REASON,
  type RedisServer,
  redisAvailable,
  startRedis,
} from '../support/redis.js'
import { demoToken, startStack } from '../support/stack.js'

/**
 * A caller's `Cache-Control: no-cache` on one replica reaches the in-process tier of every other
 * replica on the same Redis: after the refresh they answer alike, none with the value it had kept.
 * Every count is the demo upstream's own log or Redis's own command statistics.
 */

const stack = await startStack({ cacheTtlSeconds: 300 })
/** This file's own Redis: its command statistics count these replicas' commands only. */
const redis: RedisServer | undefined = redisAvailable ? await startRedis() : undefined
afterAll(() => redis?.stop())
const { demo } = stack

describe.skipIf(!redisAvailable)(
  redisAvailable
    ? 'a refresh across replicas'
    : `a refresh across replicas: skipped, ${REDIS_SKIP_REASON}`,
  () => {
    it('a no-cache refresh on one replica is what the others answer next, with no upstream call of theirs', async () => {
      const client = new Redis(redis?.url ?? '')
      onTestFinished(() => client.disconnect())
      const [one, two] = await connectedWith(redis?.url ?? '', 4, () => [
        stack.replica({ redisUrl: redis?.url }),
        stack.replica({ redisUrl: redis?.url }),
      ])
      const [list] = demo.data.lists
      const query = `{ list(listId: ${list?.id}) { name } }`
      const before = { list: { name: list?.name } }
      // Read by one, then by two from Redis: both keep it in their in-process tier.
      for (const replica of [one, two]) {
        expect((await replica.post(query)).body.data).toEqual(before)
      }
      expect(demo.calls()).toHaveLength(1)
      // Both listen for refreshes (once connected: an announcement made before would miss them).
      await vi.waitFor(
        async () => {
          const [, listening] = (await client.pubsub('NUMSUB', READS_CHANNEL)) as [string, number]
          expect(listening).toBe(2)
        },
        { timeout: 10_000 },
      )

      // The upstream's answer changes, and one is asked for a fresh read.
      demo.reset()
      const renamed = `${list?.name} (renamed)`
      demo.inject({
        path: `/v1/lists/${list?.id}`,
        transform: (json) => {
          for (const entry of (json as { data: { name: string }[] }).data) entry.name = renamed
          return json
        },
      })
      const after = { list: { name: renamed } }
      await commandsSince(client)
      const fresh = await one.post(query, {}, { ...demoToken, 'cache-control': 'no-cache' })
      expect(fresh.body.data).toEqual(after)
      expect(demo.calls()).toHaveLength(1)
      const refreshCommands = await commandsSince(client)

      // Two replaces its copy with the one the announcement carries (published before one
      // answered, it is on its way to two's connection; until it lands, two may answer the copy
      // it kept).
      await vi.waitFor(async () => expect((await two.post(query)).body.data).toEqual(after), {
        timeout: 10_000,
      })
      expect(demo.calls()).toHaveLength(1)
      // The refresh: stored in Redis and announced with its answer (no lookup, no lock); two
      // answers from its own tier, with no Redis command.
      expect(refreshCommands).toEqual({ set: 1, publish: 1 })
      expect(await commandsSince(client)).toEqual({})
    })

    it.each([
      ['the upstream no longer has it (404)', { status: 404 }, 'NOT_FOUND'],
      [
        'the upstream says not to keep it (no-store)',
        { headers: { 'cache-control': 'no-store' } },
        undefined,
      ],
    ] as const)(
      'a refresh that learns %s removes the entry everywhere: no replica answers the old value',
      async (_what, fault, code) => {
        const [one, two] = [
          stack.replica({ redisUrl: redis?.url }),
          stack.replica({ redisUrl: redis?.url }),
        ]
        const list = demo.data.lists[1]
        const query = `{ list(listId: ${list?.id}) { name } }`
        for (const replica of [one, two]) await replica.post(query)
        const client = new Redis(redis?.url ?? '')
        onTestFinished(() => client.disconnect())
        await vi.waitFor(
          async () => {
            const [, listening] = (await client.pubsub('NUMSUB', READS_CHANNEL)) as [string, number]
            expect(listening).toBeGreaterThanOrEqual(2)
          },
          { timeout: 10_000 },
        )
        demo.reset()
        demo.inject({ path: `/v1/lists/${list?.id}`, times: 1, ...fault })
        const fresh = await one.post(query, {}, { ...demoToken, 'cache-control': 'no-cache' })
        expect(fresh.body.errors?.map((e) => e.extensions?.code)).toEqual(code ? [code] : undefined)
        // The other replica reads the upstream again (the fault is spent): neither its own copy
        // nor Redis serves the one the refresh found gone.
        const reads = () => demo.calls().filter((c) => c.path === `/v1/lists/${list?.id}`).length
        await vi.waitFor(
          async () => {
            await two.post(query)
            expect(reads()).toBe(2)
          },
          { timeout: 10_000 },
        )
      },
    )
  },
)
