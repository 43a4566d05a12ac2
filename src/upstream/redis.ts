import { Redis } from 'ioredis'
import type { Logger } from 'pino'

/**
 * The one Redis connection of a process (REDIS_URL), shared by the read cache, the in-flight
 * locks and the rate limiter. Redis is an optimisation here, never a dependency: every command
 * fails fast when Redis is down or slow (no offline queue, no per-command retries, a short
 * command timeout), and after a failure Redis is left alone for a few seconds (one breaker for
 * every use), so a request is delayed by one short timeout at most, then served straight from
 * the upstream. The client keeps reconnecting in the background.
 */

/** The longest a request may wait for Redis (contract: at most 250 ms). */
export const REDIS_COMMAND_TIMEOUT_MS = 200
/** How long Redis is left alone after a failed command. */
const BREAK_MS = 5000

/** Thrown instead of a command while the breaker is open. */
export class RedisUnavailable extends Error {
  constructor() {
    super('Redis is unavailable')
  }
}

/** Deletes the key only if it still holds `owner`: a lock that expired and was taken by someone
 *  else is not released by its first owner. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`

export class RedisLink {
  readonly client: Redis
  private brokenUntil = 0
  private down = false
  /** Commands refused or failed since start: operators see Redis trouble without reading logs. */
  failures = 0

  constructor(
    url: string,
    private readonly logger?: Logger,
  ) {
    this.client = new Redis(url, {
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: 1000,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      // Reconnect for ever, at most every 2 s: Redis coming back is picked up without a restart.
      retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
    })
    this.client.on('error', (error: Error) => this.markDown(error))
    this.client.on('ready', () => {
      this.brokenUntil = 0
      if (!this.down) return
      this.down = false
      this.logger?.info('Redis reachable again')
    })
  }

  /** Runs a Redis operation unless the breaker is open; a failure opens it. */
  readonly guard = async <T>(operation: () => Promise<T>): Promise<T> => {
    if (Date.now() < this.brokenUntil) {
      this.failures++
      throw new RedisUnavailable()
    }
    try {
      // Connecting (at start, or back after an outage): worth one short wait, not more.
      if (this.client.status !== 'ready') await this.ready()
      return await operation()
    } catch (error) {
      this.markDown(error as Error)
      throw error
    }
  }

  private ready(): Promise<void> {
    const { client } = this
    if (client.status !== 'connecting' && client.status !== 'connect') {
      return Promise.reject(new RedisUnavailable())
    }
    return new Promise((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(timer)
        client.off('ready', onReady)
        if (error) reject(error)
        else resolve()
      }
      const onReady = () => done()
      const timer = setTimeout(() => done(new RedisUnavailable()), REDIS_COMMAND_TIMEOUT_MS)
      client.once('ready', onReady)
    })
  }

  /** Takes `key` for `owner` for `ms`: `held` when someone else has it, `unavailable` when
   *  Redis fails (the caller then goes on without it). */
  async acquire(key: string, owner: string, ms: number): Promise<'taken' | 'held' | 'unavailable'> {
    try {
      const set = await this.guard(() => this.client.set(key, owner, 'PX', ms, 'NX'))
      return set === 'OK' ? 'taken' : 'held'
    } catch {
      return 'unavailable'
    }
  }

  /** Whether someone holds `key`; false when Redis fails (the caller then loads itself). */
  async held(key: string): Promise<boolean> {
    try {
      return (await this.guard(() => this.client.exists(key))) === 1
    } catch {
      return false
    }
  }

  /** Releases `key` if `owner` still holds it; a failure leaves it to expire. */
  release(key: string, owner: string): void {
    this.guard(() => this.client.eval(RELEASE, 1, key, owner)).catch(() => {})
  }

  async close(): Promise<void> {
    this.client.disconnect()
  }

  /** Logged once per outage, not once per failed command. */
  private markDown(error: Error) {
    this.failures++
    this.brokenUntil = Date.now() + BREAK_MS
    if (this.down) return
    this.down = true
    this.logger?.warn(
      { code: (error as { code?: string }).code ?? error.name },
      'Redis unavailable: serving straight from the upstream until it is back',
    )
  }
}
