import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { freePort } from './process.js'

/**
 * A real `redis-server` on a free loopback port, for the tests (test/support/redis.ts) and
 * `npm run bench`, and Redis's own count of the commands it ran.
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

export interface RedisServer {
  url: string
  port: number
  /** Stops the server (SIGKILL: as abrupt as a crashed host). */
  kill(): Promise<void>
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>
  /** Freezes it (SIGSTOP): connections stay open, nothing is answered; `thaw` (SIGCONT) ends it. */
  freeze(): void
  thaw(): void
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
  const signal = (name: NodeJS.Signals) => () => {
    child?.kill(name)
  }
  return {
    url,
    port,
    kill,
    restart: launch,
    freeze: signal('SIGSTOP'),
    thaw: signal('SIGCONT'),
    stop: async () => {
      child?.kill('SIGCONT')
      await kill()
    },
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
