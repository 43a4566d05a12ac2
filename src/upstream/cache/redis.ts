import { type ChainableCommander, Redis } from 'ioredis'
import type { Logger } from 'pino'

/**
 * The one Redis connection of a process (REDIS_URL), shared by the read cache, the locks of
 * reads in flight and the rate limiter. Redis is an optimisation here, never a dependency: every command
 * fails fast when Redis is down or slow (no offline queue, no per-command retries, a short
 * command timeout), and after a few failures in a row Redis is left alone for a few seconds (one
 * breaker for every use), so a request is delayed by one short timeout at most, then served
 * straight from the upstream. One late reply (a busy event loop, a slow network) does not open
 * it: sharing reads across replicas then goes on. The client keeps reconnecting in the
 * background.
 */

/** The longest a request may wait for Redis (contract: at most 250 ms). */
export const REDIS_COMMAND_TIMEOUT_MS = 200
/** Lua: `redis_now()`, Redis's own clock in ms, which every replica's scripts agree on. */
export const REDIS_NOW_LUA = `
local function redis_now()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
end
`

/** How long Redis is left alone once the breaker opens. */
const BREAK_MS = 5000
/** Failed commands in a row (no success between them) that open the breaker. */
const FAILURES_TO_BREAK = 3
/** A timeout that fired this much past its time was this process's busy event loop, not Redis. */
const LATE_TIMER_MS = 50

/** Thrown instead of a command while the breaker is open. */
export class RedisUnavailable extends Error {
  constructor() {
    super('Redis is unavailable')
  }
}

export class RedisLink {
  readonly client: Redis
  private brokenUntil = 0
  private failuresInARow = 0
  private down = false
  /** Made by the first subscribe. */
  private subscriber: Redis | undefined
  /** Its channels are subscribed on its connection as it is now. */
  private subscribed = false
  private readonly listeners = new Map<string, (message: string) => void>()
  private readonly listeningListeners: (() => void)[] = []
  private readonly lostListeners: (() => void)[] = []

  constructor(
    url: string,
    private readonly logger?: Logger,
    /** Told of every command that failed or was not sent: operators see it in the metrics. */
    private readonly failed: () => void = () => {},
  ) {
    this.client = new Redis(url, {
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: 1000,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      // Reconnect for ever, at most every 2 s: Redis coming back is picked up without a restart.
      retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
    })
    this.client.on('error', (error: Error) => this.markDown(error, { lost: true }))
    this.client.on('ready', () => {
      this.brokenUntil = 0
      this.markUp()
      this.listening()
    })
  }

  /** Runs a Redis operation unless the breaker is open; failures in a row open it. */
  readonly guard = async <T>(operation: () => Promise<T>): Promise<T> => {
    if (Date.now() < this.brokenUntil) {
      this.failed()
      throw new RedisUnavailable()
    }
    let sentAt: number | undefined
    try {
      // Connecting (at start, or back after an outage): worth one short wait, not more.
      if (this.client.status !== 'ready') await this.ready()
      sentAt = performance.now()
      const result = await operation()
      this.markUp()
      return result
    } catch (error) {
      // Timeouts that fire together once a busy event loop frees up say nothing of Redis: its
      // replies may be waiting, unread. They fail their own requests, and count for no more.
      const late =
        sentAt !== undefined &&
        (error as Error).message === 'Command timed out' &&
        performance.now() - sentAt > REDIS_COMMAND_TIMEOUT_MS + LATE_TIMER_MS
      this.markDown(error as Error, { counts: !late })
      throw error
    }
  }

  /**
   * Runs a pipeline or transaction through the breaker: ioredis resolves `exec()` even when its
   * commands failed (timed out, each an error in its reply), which must count as a failure.
   */
  exec(batch: ChainableCommander): Promise<[error: Error | null, result: unknown][]> {
    return this.guard(async () => {
      const replies = (await batch.exec()) ?? []
      const failure = replies.find(([error]) => error)?.[0]
      if (failure) throw failure
      return replies
    })
  }

  /** One wait for the connection, shared by every command that arrives while it connects. */
  private connecting: Promise<void> | undefined

  private ready(): Promise<void> {
    const { client } = this
    if (client.status !== 'connecting' && client.status !== 'connect') {
      return Promise.reject(new RedisUnavailable())
    }
    this.connecting ??= new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(timer)
        client.off('ready', onReady)
        this.connecting = undefined
        if (error) reject(error)
        else resolve()
      }
      const onReady = () => done()
      const timer = setTimeout(() => done(new RedisUnavailable()), REDIS_COMMAND_TIMEOUT_MS)
      client.once('ready', onReady)
    })
    return this.connecting
  }

  /**
   * Hands `listener` every message any replica publishes on `channel`. Every subscription of the
   * process shares one connection of its own (a subscribed connection can send nothing else),
   * which subscribes again on every 'ready': Redis down at start and reconnections are covered;
   * what is published while this process is away from Redis is missed (`onListening` catches up).
   */
  subscribe(channel: string, listener: (message: string) => void): void {
    this.listeners.set(channel, listener)
    if (this.subscriber?.status === 'ready') this.subscriber.subscribe(channel).catch(() => {})
    if (this.subscriber) return
    const subscriber = this.client.duplicate({ autoResubscribe: false })
    subscriber.on('error', () => {}) // the command connection already logs outages
    subscriber.on('ready', () => {
      subscriber
        .subscribe(...this.listeners.keys())
        .then(() => {
          this.subscribed = true
          this.listening()
        })
        .catch(() => {})
    })
    subscriber.on('message', (from: string, message: string) => this.listeners.get(from)?.(message))
    subscriber.on('close', () => {
      this.subscribed = false
      for (const lost of this.lostListeners) lost()
    })
    this.subscriber = subscriber
  }

  /**
   * Calls `listener` whenever the subscriptions are in place and commands can be sent (at start
   * and after every reconnection of either connection): the moment to read the state that
   * messages missed meanwhile would have told.
   */
  onListening(listener: () => void): void {
    this.listeningListeners.push(listener)
  }

  private listening() {
    if (!this.subscribed || this.client.status !== 'ready') return
    for (const listener of this.listeningListeners) listener()
  }

  /** Calls `listener` whenever the subscribed connection drops: messages may then be missed. */
  onLost(listener: () => void): void {
    this.lostListeners.push(listener)
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect()
    this.client.disconnect()
  }

  /** A stalled Redis comes back without reconnecting: any success ends the outage. */
  private markUp() {
    this.failuresInARow = 0
    if (!this.down) return
    this.down = false
    this.logger?.info('Redis reachable again')
  }

  /**
   * Logged once per outage, not once per failed command. `lost`: the connection itself failed
   * (the breaker opens at once); `counts`: false when the failure says nothing of Redis.
   */
  private markDown(error: Error, { lost = false, counts = true } = {}) {
    this.failed()
    if (counts) this.failuresInARow++
    if (!lost && this.failuresInARow < FAILURES_TO_BREAK) return
    this.brokenUntil = Date.now() + BREAK_MS
    if (this.down) return
    this.down = true
    this.logger?.warn(
      { code: (error as { code?: string }).code ?? error.name },
      'Redis unavailable: serving straight from the upstream until it is back',
    )
  }
}
