import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type Socket, connect as tcpConnect } from 'node:net'
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

/**
 * The lock a replica holds on a read it sent: it lasts as long as that read may (its
 * UPSTREAM_TIMEOUT_MS), so a holder cut off from Redis, frozen or dead holds nobody past that;
 * the replicas waiting for it are told when it lands, or look again when it ends, and never poll
 * meanwhile; a waiter whose own deadline comes first fails then, at once. Replicas' clocks may
 * differ: a lock's end is its holder's, so a waiter never waits longer than the lock's whole
 * length, nor asks again and again because the end looks past.
 */

const stack = await startStack({ cacheTtlSeconds: 300, upstreamToken: DEMO_TOKEN })
const { demo } = stack
const companies = bigList.members.map((m) => m.company)
const queryOf = (i: number) =>
  `{ company(country: ${companies[i]?.country}, number: "${companies[i]?.companyNumber}") { financials(first: 1) { totalCount } } }`
const pathOf = (i: number) =>
  `/v1/companies/${companies[i]?.country}/${companies[i]?.companyNumber}/financials`
const codeOf = (answer: { body: { errors?: { extensions?: { code?: string } }[] } }) =>
  answer.body.errors?.[0]?.extensions?.code ?? 'ok'
const sum = (commands: Record<string, number>) =>
  Object.values(commands).reduce((total, n) => total + n, 0)

/** A TCP proxy to Redis that can be cut: it then drops every byte both ways, sockets left open
 *  (a partition, or a frozen process: Redis still sees the connections). */
async function cuttableProxy(port: number) {
  const sockets = new Set<Socket>()
  let cut = false
  const server = createServer((client) => {
    const target = tcpConnect(port, '127.0.0.1')
    sockets.add(client).add(target)
    for (const [from, to] of [
      [client, target],
      [target, client],
    ] as const) {
      from.on('data', (chunk) => {
        if (!cut && !to.destroyed) to.write(chunk)
      })
      from.on('close', () => {
        if (!cut) to.destroy()
      })
      from.on('error', () => {})
    }
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  return {
    url: `redis://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    cut: () => {
      cut = true
    },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      server.close()
      await once(server, 'close')
    },
  }
}

describe.skipIf(!redisAvailable)(
  redisAvailable ? 'locks of reads sent' : `locks: skipped, ${REDIS_SKIP_REASON}`,
  async () => {
    const redis = redisAvailable ? await startRedis() : undefined
    afterAll(() => redis?.stop())
    const url = redis?.url ?? ''
    const probe = redisAvailable ? new Redis(url) : undefined
    afterAll(() => probe?.disconnect())

    /** Replicas with these settings, each past a first read (scripts loaded, connections up). */
    async function replicas(settings: Record<string, unknown>[], warmUp: number) {
      const made = await connectedWith(url, 2 * settings.length, () =>
        settings.map((s) => stack.replica({ redisUrl: url, ...s })),
      )
      for (const replica of made) expect(codeOf(await replica.post(queryOf(warmUp)))).toBe('ok')
      demo.reset()
      return made
    }

    it('lasts the read’s UPSTREAM_TIMEOUT_MS (and the Redis reply’s time), not longer', async () => {
      const [maker] = await replicas([{ upstreamTimeoutMs: 3000 }], 10)
      const held = demo.hold(pathOf(11))
      const made = maker?.post(queryOf(11))
      await demo.waitForCalls((calls) => calls.length === 1)
      const [key] = (await probe?.keys(`gw:reads:*${pathOf(11)}?*`)) ?? []
      const ttl = await probe?.pttl(key ?? '')
      held.release()
      expect(codeOf((await made) ?? { body: {} })).toBe('ok')
      expect(ttl).toBeGreaterThan(0)
      // Taken at most one Redis command timeout (200 ms) before the read's time starts.
      expect(ttl).toBeLessThanOrEqual(3200)
    })

    it('a waiter whose deadline comes first fails then, asking Redis nothing meanwhile', async () => {
      const [maker, waiter] = await replicas([{}, { operationTimeoutMs: 300 }], 20)
      const held = demo.hold(pathOf(21))
      const made = maker?.post(queryOf(21))
      await demo.waitForCalls((calls) => calls.length === 1)
      await commandsSince(probe as Redis)
      // Answered while the read it waits for is still held.
      const answer = await waiter?.post(queryOf(21))
      const commands = await commandsSince(probe as Redis)
      held.release()
      await made
      expect(answer?.body.data).toEqual({ company: { financials: null } })
      expect(codeOf(answer ?? { body: {} })).toBe('UPSTREAM_TIMEOUT')
      // Its lookup, which found the lock: nothing after.
      expect({ commands }).toSatisfy(() => sum(commands) <= 2)
      expect(demo.calls()).toHaveLength(1)
    })

    it('a holder cut off from Redis holds its waiters until its lock ends, then one of them reads', async () => {
      const proxy = await cuttableProxy(redis?.port ?? 0)
      onTestFinished(() => proxy.close())
      const [cutOff] = await connectedWith(url, 2, () => [
        stack.replica({ redisUrl: proxy.url, upstreamTimeoutMs: 2000 }),
      ])
      const [waiter] = await replicas([{}], 30)
      expect(codeOf((await cutOff?.post(queryOf(30))) ?? { body: {} })).toBe('ok')
      demo.reset()
      const held = demo.hold(pathOf(31))
      const made = cutOff?.post(queryOf(31))
      await demo.waitForCalls((calls) => calls.length === 1)
      proxy.cut()
      // Its read is answered, but it cannot tell Redis: its lock stays until it ends.
      held.release()
      expect(codeOf((await made) ?? { body: {} })).toBe('ok')
      await commandsSince(probe as Redis)
      const answer = await waiter?.post(queryOf(31))
      const commands = await commandsSince(probe as Redis)
      expect(codeOf(answer ?? { body: {} })).toBe('ok')
      // The cut-off holder's call, then the waiter's own once the lock ended: no poll between.
      expect(demo.calls().map((c) => c.path)).toEqual([pathOf(31), pathOf(31)])
      expect({ commands }).toSatisfy(() => sum(commands) <= 6)
    }, 30_000)

    /** Redis's key for query i's read, found by a replica that read it, then emptied. */
    async function keyOf(i: number, reader: Client) {
      expect(codeOf(await reader.post(queryOf(i)))).toBe('ok')
      const [key] = (await probe?.keys(`gw:reads:*${pathOf(i)}?*`)) ?? []
      if (!key) throw new Error('no key')
      await probe?.del(key)
      demo.reset()
      return key
    }
    /** A lock as another replica writes it: owner, until when by its clock, and how long. */
    const lockOf = (until: number, ms: number) =>
      `\0${randomUUID()}:${randomUUID()} ${Math.ceil(until)} ${ms}`
    const MINUTE = 60_000

    it('a holder whose clock runs a minute ahead died holding a 1 s lock: the waiter reads once the lock is gone', async () => {
      const [reader, waiter] = await replicas([{}, { operationTimeoutMs: 8000 }], 50)
      const key = await keyOf(51, reader as Client)
      await commandsSince(probe as Redis)
      await probe?.set(key, lockOf(Date.now() + MINUTE + 1000, 1000), 'PX', 1000)
      const answer = await waiter?.post(queryOf(51))
      const commands = await commandsSince(probe as Redis)
      expect(codeOf(answer ?? { body: {} })).toBe('ok')
      expect(demo.calls().map((c) => c.path)).toEqual([pathOf(51)])
      // Within its 8 s deadline, and without asking in between.
      expect({ commands }).toSatisfy(() => sum(commands) <= 6)
    }, 30_000)

    it('a holder whose clock runs a minute behind, still reading: the waiter does not ask again and again', async () => {
      const [reader, waiter] = await replicas([{}, {}], 52)
      const key = await keyOf(53, reader as Client)
      await commandsSince(probe as Redis)
      await probe?.set(key, lockOf(Date.now() - MINUTE + 1500, 1500), 'PX', 1500)
      const answer = await waiter?.post(queryOf(53))
      const commands = await commandsSince(probe as Redis)
      expect(codeOf(answer ?? { body: {} })).toBe('ok')
      expect(demo.calls().map((c) => c.path)).toEqual([pathOf(53)])
      // The test's SET; the waiter's lookup, one more when the lock's length is over, its store
      // and announcement.
      expect({ commands }).toSatisfy(() => sum(commands) <= 6)
    }, 30_000)

    it('an entry stored by a replica whose clock runs 10 minutes behind is fresh while Redis keeps it', async () => {
      const all = await replicas([{}, {}, {}, {}, {}], 54)
      const [reader, ...four] = all as [Client, ...Client[]]
      expect(codeOf(await reader.post(queryOf(55)))).toBe('ok')
      const [key = ''] = (await probe?.keys(`gw:reads:*${pathOf(55)}?*`)) ?? []
      const [, fresh, kept, json] = /^(\d+) (\d+) (.*)$/s.exec((await probe?.get(key)) ?? '') ?? []
      const behind = 10 * MINUTE
      await probe?.set(
        key,
        `${Number(fresh) - behind} ${Number(kept) - behind} ${json}`,
        'PX',
        300_000,
      )
      demo.reset()
      const answers = await Promise.all(four.map((replica) => replica.post(queryOf(55))))
      for (const answer of answers) expect(codeOf(answer)).toBe('ok')
      expect(demo.calls()).toEqual([])
    })

    it('four replicas waiting for a slow read ask Redis no more than for a fast one', async () => {
      const all = await replicas([{}, {}, {}, {}], 40)
      const [first, ...others] = all as [Client, ...Client[]]
      const commandsFor = async (i: number, latencyMs: number) => {
        demo.reset()
        demo.latencyMs = latencyMs
        await commandsSince(probe as Redis)
        const made = first.post(queryOf(i))
        await demo.waitForCalls((calls) => calls.length === 1)
        const answers = await Promise.all([made, ...others.map((r) => r.post(queryOf(i)))])
        for (const answer of answers) expect(codeOf(answer)).toBe('ok')
        expect(demo.calls()).toHaveLength(1)
        return sum(await commandsSince(probe as Redis))
      }
      onTestFinished(() => {
        demo.latencyMs = 0
      })
      const fast = await commandsFor(41, 20)
      const slow = await commandsFor(42, 2000)
      expect({ fast, slow }).toSatisfy(() => slow <= fast)
    }, 30_000)
  },
)
