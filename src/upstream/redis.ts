import { Redis } from 'ioredis'
import type { Logger } from 'pino'

/** A process's one Redis connection and health switch: a command unanswered for TIMEOUT_MS or a
 *  dropped connection trips it; every use is then skipped until a background PING finds Redis. */

/** Keys of this version: old and new replicas never read each other's during a rolling deploy. */
export const PREFIX = 'gw3:'
/** The Redis key of a read: its answer, or the lock of the replica reading it. */
export const readKey = (key: string) => `${PREFIX}read:${key}`
export const TIMEOUT_MS = 200
export const REDIS_DOWN = new Error('Redis is unavailable')

export class RedisLink {
  readonly client: Redis
  /** The switch: false while Redis is down (every use of it skipped). */
  available = false
  /** Called whenever the switch trips: whoever waits for Redis stops. */
  readonly onDown: (() => void)[] = []
  private probing: NodeJS.Timeout | undefined
  private readonly pending = new Set<(error: unknown) => void>()
  private gets: { key: string; answer(value: string | null | undefined): void }[] = []

  constructor(
    url: string,
    private readonly logger?: Logger,
    /** Told of every command that failed or was skipped (a metric). */
    private readonly failed: () => void = () => {},
  ) {
    // No offline queue, no resending; reconnecting for ever, at most every 2 s.
    this.client = new Redis(url, {
      connectTimeout: 1000,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
    })
    for (const trips of ['error', 'close']) this.client.on(trips, () => this.trip())
    this.client.on('ready', () => this.healthy())
  }

  /** Runs `command` unless Redis is down; rejects (REDIS_DOWN) when it is, or goes down. */
  run<T>(command: (client: Redis) => Promise<T>): Promise<T> {
    if (!this.available) {
      this.failed()
      return Promise.reject(REDIS_DOWN)
    }
    return new Promise<T>((resolve, reject) => {
      const sent = performance.now()
      let late: NodeJS.Timeout | undefined
      const settle = (error: unknown, value?: T) => {
        if (!this.pending.delete(settle)) return
        clearTimeout(timer)
        clearTimeout(late)
        if (!error) return resolve(value as T)
        this.failed()
        reject(error)
      }
      // A timer that fires late found this process busy, not Redis slow: the reply may be read
      // meanwhile (sockets are read before setImmediate runs), or it gets one more timeout.
      const check = () =>
        setImmediate(() => {
          if (!this.pending.has(settle)) return
          if (performance.now() - sent < 1.5 * TIMEOUT_MS || late) return this.trip()
          late = setTimeout(check, TIMEOUT_MS)
        })
      const timer = setTimeout(check, TIMEOUT_MS)
      this.pending.add(settle)
      command(this.client).then((value) => settle(undefined, value), settle)
    })
  }

  /** GET `key`, with every other GET of this tick in one MGET; undefined while Redis is down. */
  get(key: string): Promise<string | null | undefined> {
    if (!this.available) return Promise.resolve(undefined)
    return new Promise((answer) => {
      if (this.gets.length === 0) setImmediate(() => this.flushGets())
      this.gets.push({ key, answer })
    })
  }

  private async flushGets() {
    const gets = this.gets
    this.gets = []
    const values = await this.run((c) => c.mget(gets.map((g) => g.key))).catch(() => undefined)
    for (const [i, get] of gets.entries()) get.answer(values ? (values[i] ?? null) : undefined)
  }

  /** QUIT once what is under way is answered (a lock given back), never waiting long for it. */
  async close(): Promise<void> {
    clearTimeout(this.probing)
    const waited = new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS).unref())
    await Promise.race([this.client.quit().catch(() => {}), waited])
    this.available = false
    this.client.disconnect()
  }

  private trip() {
    if (this.available) {
      this.available = false
      this.logger?.warn('Redis unavailable: serving without it until it is back')
      for (const settle of [...this.pending]) settle(REDIS_DOWN)
      for (const listener of this.onDown) listener()
    }
    if (this.probing || this.client.status === 'end') return
    // One PING at a time, every half second, while Redis is down but connected (else 'ready').
    this.probing = setTimeout(() => {
      this.probing = undefined
      if (this.client.status !== 'ready') return this.trip()
      const timer = setTimeout(() => this.trip(), TIMEOUT_MS)
      const back = () => {
        clearTimeout(timer)
        this.healthy()
      }
      this.client.ping().then(back, () => {})
    }, 500).unref()
  }

  private healthy() {
    if (this.available || this.client.status !== 'ready') return
    clearTimeout(this.probing)
    this.probing = undefined
    this.available = true
    this.logger?.info('Redis available')
  }
}
