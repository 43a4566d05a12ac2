import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { expect, it, vi } from 'vitest'
import { freePort } from './process.js'

/**
 * A real `redis-server` for the tests that need one: each test file starts its own on a free
 * loopback port (so one file may kill it without touching another) and stops it in afterAll.
 *
 * Where redis-server is not installed those tests are skipped with the reason, the only skip the
 * suite allows; CI sets REQUIRE_REDIS=1, which turns a missing redis-server into a failure.
 */

function findRedisServer(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
}

const binary = findRedisServer()
export const redisAvailable = binary !== undefined
export const REDIS_SKIP_REASON = 'redis-server is not installed (apt-get install redis-server)'

if (!redisAvailable && process.env.REQUIRE_REDIS === '1') {
  it('has redis-server, which REQUIRE_REDIS=1 demands', () => {
    throw new Error(`REQUIRE_REDIS=1 but ${REDIS_SKIP_REASON}`)
  })
}

export interface RedisServer {
  url: string
  port: number
  /** Stops the server (SIGKILL: as abrupt as a crashed host). */
  kill(): Promise<void>
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>
  stop(): Promise<void>
}

async function waitUntilUp(url: string) {
  for (let attempt = 0; ; attempt++) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 })
    client.on('error', () => {})
    try {
      await client.connect()
      await client.ping()
      return
    } catch (error) {
      if (attempt > 200) throw error
      await sleep(25)
    } finally {
      client.disconnect()
    }
  }
}

export async function startRedis(): Promise<RedisServer> {
  if (!binary) throw new Error(REDIS_SKIP_REASON)
  const port = await freePort()
  const url = `redis://127.0.0.1:${port}`
  let child: ChildProcess | undefined
  const launch = async () => {
    child = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    )
    await waitUntilUp(url)
  }
  const kill = async () => {
    const running = child
    child = undefined
    if (!running || running.exitCode !== null) return
    const exited = once(running, 'exit')
    running.kill('SIGKILL')
    await exited
  }
  await launch()
  return { url, port, kill, restart: launch, stop: kill }
}

/**
 * Makes what `make` makes (gateways with REDIS_URL) and waits until Redis sees its `connections`
 * new client connections: a gateway's first command waits only a short while for its connection,
 * then leaves Redis alone for a few seconds, which a busy machine would turn into a flaky test.
 */
export async function connectedWith<T>(url: string, connections: number, make: () => T) {
  const probe = new Redis(url)
  const clients = async () =>
    Number(/connected_clients:(\d+)/.exec(await probe.info('clients'))?.[1] ?? Number.NaN)
  try {
    const before = await clients()
    const made = make()
    await vi.waitFor(
      async () => expect(await clients()).toBeGreaterThanOrEqual(before + connections),
      {
        timeout: 10_000,
      },
    )
    return made
  } finally {
    probe.disconnect()
  }
}

/**
 * Redis's command counts since the last call, by command, as INFO commandstats reports them
 * (commands a script runs counted too): `client`'s own INFO and RESETSTAT left out.
 */
export async function commandsSince(client: Redis): Promise<Record<string, number>> {
  const stats = await client.info('commandstats')
  await client.config('RESETSTAT')
  const counts: Record<string, number> = {}
  for (const [, name, calls] of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (name && name !== 'info' && !name.startsWith('config|')) counts[name] = Number(calls)
  }
  return counts
}
