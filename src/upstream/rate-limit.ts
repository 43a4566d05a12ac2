import { setTimeout as sleep } from 'node:timers/promises'
import type { RedisLink } from './cache/redis.js'

/**
 * UPSTREAM_RATE_LIMIT and the upstream's own 429 + Retry-After, per upstream token.
 *
 * The bucket is GCRA (a reservation-style token bucket): per token one number, the theoretical
 * arrival time (TAT). With T = 1000 / rate ms between requests and a tolerance τ = 1000 - T (a
 * full bucket holds one second's worth), a request's turn comes at max(now, TAT - τ) and moves
 * TAT on by T. Each call so reserves the next free slot before it waits: waiting callers are
 * served in order and never race for a refilled token. A reservation is committed only when
 * its turn comes before the caller's deadline. A pause (429) pushes TAT to at least until + τ,
 * so no turn comes before `until` and the requests held back by it leave one T apart, not in a
 * burst; with no rate (T = τ = 0) the same formula is a plain "not before `until`".
 *
 * Where the state lives:
 * - Rate set, Redis given: one Lua script per turn reserves in Redis (`gw:rate:<tokenKey>`, on
 *   Redis's clock so replicas with skewed clocks agree, expiring once it no longer holds
 *   anything back); the budget is shared by every replica, pauses included.
 * - No rate set: `turn` reads only the process's own map and never touches Redis (zero cost
 *   when the feature is off). A pause is recorded in that map and, with Redis, published on
 *   `gw:rate:pause` as a duration; every replica's subscriber records it in its own map, so a
 *   429 seen by one replica holds the token on all of them.
 * - No Redis, Redis not connected, or a Redis command failing (they fail fast, and after a
 *   failure Redis is left alone for a few seconds, so a request pays one short timeout at
 *   most): the same algorithm in the process's map; the rate budget is then per process.
 *   Pauses are always recorded there too, so they survive the fallback. Entries whose TAT has
 *   passed hold nothing and are swept.
 */

/** The turn would come after the caller's deadline; nothing was reserved. */
export class RateLimitWait extends Error {
  override readonly name = 'RateLimitWait'

  constructor(readonly waitMs: number) {
    super(
      `the upstream rate limit gives this token its next turn in ${waitMs} ms, after the deadline`,
    )
  }
}

export interface RateLimiterOptions {
  /** UPSTREAM_RATE_LIMIT: requests per second per token; unset: no limit (pauses still apply). */
  ratePerSecond?: number | undefined
  /** The process's shared Redis (failing fast, one breaker); unset: everything stays in this
   *  process. */
  redis?: RedisLink | undefined
}

const PAUSE_CHANNEL = 'gw:rate:pause'
/** setTimeout's limit; a farther deadline is no deadline. */
const MAX_WAIT_MS = 2 ** 31 - 1
/** The local map is swept of passed entries when it grows past this (and then twice its size). */
const MIN_SWEEP_SIZE = 1024

// KEYS[1]: the token's TAT (epoch ms, Redis's clock).
// ARGV: T (ms between requests), τ (ms of burst tolerance), the longest wait the caller accepts.
// Returns {1, wait ms} when the turn is reserved, {0, wait ms} when it would come too late.
const RESERVE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local maxWait = tonumber(ARGV[3])

local stored = redis.call('GET', KEYS[1])
local tat = math.max(stored and tonumber(stored) or now, now)
local wait = math.max(0, tat - tolerance - now)
if wait > 0 and wait > maxWait then
  return {0, math.ceil(wait)}
end

local nextTat = tat + interval
redis.call('SET', KEYS[1], string.format('%.3f', nextTat), 'PX', math.ceil(nextTat - now))
return {1, math.ceil(wait)}
`

// KEYS[1]: the token's TAT. ARGV: ms from now during which nothing is sent, τ.
const PAUSE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local paused = now + tonumber(ARGV[1]) + tonumber(ARGV[2])

local stored = redis.call('GET', KEYS[1])
if not stored or tonumber(stored) < paused then
  redis.call('SET', KEYS[1], string.format('%.3f', paused), 'PX', math.ceil(paused - now))
end
return 1
`

/** The commands defineCommand adds to the connection. */
interface RateCommands {
  gwRateReserve(
    key: string,
    intervalMs: number,
    toleranceMs: number,
    maxWaitMs: number,
  ): Promise<[number, number]>
  gwRatePause(key: string, pauseMs: number, toleranceMs: number): Promise<unknown>
}

export class UpstreamRateLimiter {
  /** T: ms between two requests of a token; 0 when no rate is set. */
  private readonly interval: number
  /** τ: how far ahead of now a token's TAT may be while its turn is still now. */
  private readonly tolerance: number
  /** Redis, only when a rate is set: without one, turns never touch it. */
  private readonly shared: RateCommands | undefined
  private readonly redis: RedisLink | undefined
  /** TAT per token key, epoch ms on this process's clock. */
  private readonly local = new Map<string, number>()
  private sweepAt = MIN_SWEEP_SIZE

  constructor(options: RateLimiterOptions) {
    const { ratePerSecond, redis } = options
    if (ratePerSecond !== undefined && !(ratePerSecond > 0 && Number.isFinite(ratePerSecond))) {
      throw new RangeError(`ratePerSecond must be a positive number, not ${ratePerSecond}`)
    }
    this.interval = ratePerSecond === undefined ? 0 : 1000 / ratePerSecond
    this.tolerance = ratePerSecond === undefined ? 0 : Math.max(0, 1000 - this.interval)
    this.redis = redis
    if (redis && ratePerSecond !== undefined) {
      redis.client.defineCommand('gwRateReserve', { numberOfKeys: 1, lua: RESERVE_SCRIPT })
      redis.client.defineCommand('gwRatePause', { numberOfKeys: 1, lua: PAUSE_SCRIPT })
      this.shared = redis.client as unknown as RateCommands
    } else if (redis) {
      redis.subscribe(PAUSE_CHANNEL, (message) => this.received(message))
    }
  }

  /**
   * Waits for this token's turn to send one request. `tokenKey` is already a keyed hash of the
   * token (never the token). Rejects with RateLimitWait (nothing reserved) when the turn would
   * come after `deadline` (epoch ms), and with the signal's reason when `signal` aborts while
   * waiting (the reserved turn is simply lost).
   */
  async turn(tokenKey: string, deadline: number, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted()
    const waitMs = await this.reserve(tokenKey, deadline)
    signal.throwIfAborted()
    if (waitMs <= 0) return
    try {
      await sleep(waitMs, undefined, { signal })
    } catch (error) {
      throw signal.aborted ? signal.reason : error
    }
  }

  /**
   * Reserves this token's next turn and returns how many ms from now it comes (0: at once);
   * `turn` is this plus the wait. Throws RateLimitWait, reserving nothing, when the turn would
   * come after `deadline`.
   */
  async reserve(tokenKey: string, deadline: number): Promise<number> {
    const { shared, redis } = this
    if (shared && redis) {
      // Redis down or slow: this process's own budget serves instead.
      const answer = await redis
        .guard(() =>
          shared.gwRateReserve(
            redisKey(tokenKey),
            this.interval,
            this.tolerance,
            Math.min(deadline - Date.now(), MAX_WAIT_MS),
          ),
        )
        .catch(() => undefined)
      if (answer) {
        const [reserved, waitMs] = answer
        if (!reserved) throw new RateLimitWait(waitMs)
        return waitMs
      }
    }
    return this.reserveLocally(tokenKey, deadline)
  }

  /**
   * The upstream answered 429 with Retry-After: no request of this token is sent before
   * `untilMs` (epoch ms), on any replica. Never rejects.
   */
  async pause(tokenKey: string, untilMs: number): Promise<void> {
    const pauseMs = Math.min(untilMs - Date.now(), MAX_WAIT_MS)
    if (!(pauseMs > 0)) return
    this.pauseLocally(tokenKey, untilMs)
    const { shared, redis } = this
    if (!redis) return
    // Durations, not instants, cross to Redis: each side applies them on its own clock. Redis
    // down: the pause holds on this replica, as the rate budget then does.
    await redis
      .guard(() =>
        shared
          ? shared.gwRatePause(redisKey(tokenKey), Math.ceil(pauseMs), this.tolerance)
          : redis.client.publish(
              PAUSE_CHANNEL,
              JSON.stringify({ tokenKey, pauseMs: Math.ceil(pauseMs) }),
            ),
      )
      .catch(() => {})
  }

  private reserveLocally(tokenKey: string, deadline: number): number {
    const now = Date.now()
    const tat = Math.max(this.local.get(tokenKey) ?? now, now)
    const waitMs = Math.ceil(tat - this.tolerance - now)
    if (waitMs > 0 && waitMs > deadline - now) throw new RateLimitWait(waitMs)
    // Without a rate a turn takes nothing: only pauses are ever stored.
    if (this.interval > 0) this.store(tokenKey, tat + this.interval, now)
    return Math.max(0, waitMs)
  }

  private pauseLocally(tokenKey: string, untilMs: number) {
    const paused = untilMs + this.tolerance
    if ((this.local.get(tokenKey) ?? 0) < paused) this.store(tokenKey, paused, Date.now())
  }

  private received(message: string) {
    let pause: { tokenKey?: unknown; pauseMs?: unknown }
    try {
      pause = JSON.parse(message)
    } catch {
      return
    }
    if (typeof pause.tokenKey === 'string' && typeof pause.pauseMs === 'number') {
      this.pauseLocally(pause.tokenKey, Date.now() + pause.pauseMs)
    }
  }

  private store(tokenKey: string, tat: number, now: number) {
    this.local.set(tokenKey, tat)
    if (this.local.size < this.sweepAt) return
    // A TAT that has passed holds nothing back: the entry is as good as absent.
    for (const [key, at] of this.local) if (at <= now) this.local.delete(key)
    this.sweepAt = Math.max(MIN_SWEEP_SIZE, 2 * this.local.size)
  }
}

function redisKey(tokenKey: string): string {
  return `gw:rate:${tokenKey}`
}
