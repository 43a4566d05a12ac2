import { REDIS_NOW_LUA, type RedisLink } from './cache/redis.js'

/**
 * UPSTREAM_RATE_LIMIT per upstream token, CALLER_RATE_LIMIT per caller, and the upstream's own
 * 429 + Retry-After per token.
 *
 * Each limit is a GCRA bucket (a reservation-style token bucket): one number, the theoretical
 * arrival time (TAT). With T = 1000 / rate ms between requests and a tolerance τ = 1000 - T (a
 * full bucket holds one second's worth), the next turn comes at max(now, TAT - τ) and taking it
 * moves TAT on by T.
 *
 * Turns are shared round robin between callers: a caller holds at most one reserved turn of a
 * token at a time, over every replica together. When no turn is free now, the next one is
 * reserved for the caller (at the end of the line) and its reads wait in their lane of the fair
 * share (src/upstream/fair-share.ts) until it comes, holding no connection; the caller's next
 * turn is reserved only once that one is taken. So a caller who asks waits at most one turn per
 * other caller then waiting (plus the bucket's refill), however many reads the others have
 * queued, and callers who all wait take turns in order. A reserved turn not taken within a
 * second of when it comes is lost, never given twice. CALLER_RATE_LIMIT is checked first: a caller over its own limit waits
 * without taking a place in the token's line.
 *
 * A 429 pause is kept per process (every replica hears it on `gw:rate:pause`, and one that
 * starts or reconnects later reads it from `gw:rate:paused`): while it lasts,
 * reads of the token wait in their lanes; with a rate it also pushes the token's TAT to at least
 * until + τ, so the reads held back by it leave one T apart, not in a burst.
 *
 * Where the state lives: with a rate (either) and Redis, in Redis (TURN_LUA, run inside the one
 * script a request runs before it is sent: src/upstream/begin.ts), on Redis's clock so replicas
 * with skewed clocks agree; keys expire once they hold nothing back. Otherwise, or while Redis
 * fails, the same algorithm in this process's maps: the budget is then per process. Entries
 * that hold nothing back are swept.
 */

/** What a request may do about its turn. */
export type Turn =
  /** Send now. */
  | { kind: 'go' }
  /** Ask again in `waitMs` (a turn is reserved for the caller then, or its own limit allows). */
  | { kind: 'later'; waitMs: number }
  /** The turn would come after the deadline: nothing was reserved. */
  | { kind: 'tooLate'; waitMs: number }

export interface RateLimiterOptions {
  /** UPSTREAM_RATE_LIMIT: requests per second per token; unset: no limit (pauses still apply). */
  ratePerSecond?: number | undefined
  /** CALLER_RATE_LIMIT: requests per second per caller, whatever the token; unset: no limit. */
  callerRatePerSecond?: number | undefined
  /** The process's shared Redis (failing fast, one breaker); unset: everything stays in this
   *  process. */
  redis?: RedisLink | undefined
}

const PAUSE_CHANNEL = 'gw:rate:pause'
/** setTimeout's limit; a farther deadline is no deadline. */
const MAX_WAIT_MS = 2 ** 31 - 1
/** How long a reserved turn is kept for its caller past when it comes (then it is lost). */
const HOLD_KEPT_MS = 1000
/** The local maps are swept of passed entries when they grow past this (then twice their size). */
const MIN_SWEEP_SIZE = 1024

/**
 * take_turn(token TAT key, hold key, caller TAT key, now, T, τ, caller T, caller τ, longest wait)
 * → code, ms: 0 send now, 1 ask again in ms, 2 too late (ms: when it would come). The caller's
 * hold is the turn reserved for it; the same algorithm as UpstreamRateLimiter.takeLocally. It
 * reads and writes through the script's get(key) and put(key, value or false, ms), which read
 * each key once and write it once per script, whatever the number of requests in it.
 */
export const TURN_LUA = `
local function take_turn(tk, hk, ck, now, T, tau, cT, ctau, maxWait)
  local ctat = 0
  if cT > 0 then
    ctat = tonumber(get(ck) or 0)
    local wait = ctat - ctau - now
    if wait > 0 then return (wait > maxWait) and 2 or 1, math.ceil(wait) end
  end
  if T > 0 then
    local hold = tonumber(get(hk) or 0)
    if hold > now then
      local wait = hold - now
      return (wait > maxWait) and 2 or 1, math.ceil(wait)
    end
    if hold > 0 then
      put(hk, false, 0)
    else
      local tat = math.max(tonumber(get(tk) or 0), now)
      local slot = math.max(now, tat - tau)
      if slot - now > maxWait then return 2, math.ceil(slot - now) end
      put(tk, string.format('%.3f', tat + T), math.ceil(tat + T - now))
      if slot > now then
        put(hk, string.format('%.3f', slot), math.ceil(slot - now) + ${HOLD_KEPT_MS})
        return 1, math.ceil(slot - now)
      end
    end
  end
  if cT > 0 then
    local next = math.max(ctat, now) + cT
    put(ck, string.format('%.3f', next), math.ceil(next - now))
  end
  return 0, 0
end
`

/** The tokens paused, each until when (Redis's clock): read by a replica that starts later. */
const PAUSED_KEY = 'gw:rate:paused'

// KEYS[1]: PAUSED_KEY, KEYS[2]: the token's TAT ('' without a rate). ARGV: the token key, ms
// from now during which nothing is sent, τ, the channel, the message.
const PAUSE_SCRIPT = `${REDIS_NOW_LUA}
local now = redis_now()
local ms = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], 'GT', now + ms, ARGV[1])
if KEYS[2] ~= '' then
  local paused = now + ms + tonumber(ARGV[3])
  local stored = redis.call('GET', KEYS[2])
  if not stored or tonumber(stored) < paused then
    redis.call('SET', KEYS[2], string.format('%.3f', paused), 'PX', math.ceil(paused - now))
  end
end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`

// KEYS[1]: PAUSED_KEY. Returns each token still paused, followed by the ms left.
const PAUSED_SCRIPT = `${REDIS_NOW_LUA}
local now = redis_now()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local paused = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 2, #paused, 2 do paused[i] = tostring(math.ceil(tonumber(paused[i]) - now)) end
return paused
`

interface PauseCommands {
  gwRatePause(
    paused: string,
    tat: string,
    tokenKey: string,
    pauseMs: number,
    toleranceMs: number,
    channel: string,
    message: string,
  ): Promise<unknown>
  gwRatePaused(paused: string): Promise<string[]>
}

/** One GCRA bucket's spacing: T and τ (both 0 without a rate). */
interface Bucket {
  interval: number
  tolerance: number
}

function bucket(perSecond: number | undefined, name: string): Bucket {
  if (perSecond === undefined) return { interval: 0, tolerance: 0 }
  if (!(perSecond > 0 && Number.isFinite(perSecond))) {
    throw new RangeError(`${name} must be a positive number, not ${perSecond}`)
  }
  const interval = 1000 / perSecond
  return { interval, tolerance: Math.max(0, 1000 - interval) }
}

export class UpstreamRateLimiter {
  private readonly token: Bucket
  private readonly caller: Bucket
  /** Redis, when a rate is set: turns are then taken there (src/upstream/begin.ts). */
  readonly redis: RedisLink | undefined
  /** Redis for pauses, whether a rate is set or not. */
  private readonly link: RedisLink | undefined
  /** TAT per token key, per caller key, and the turn reserved per token and caller (epoch ms). */
  private readonly tats = new Times()
  private readonly callerTats = new Times()
  private readonly holds = new Times()
  /** Until when each token is paused by a 429 (epoch ms, this process's clock). */
  private readonly paused = new Times()

  constructor(options: RateLimiterOptions) {
    this.token = bucket(options.ratePerSecond, 'ratePerSecond')
    this.caller = bucket(options.callerRatePerSecond, 'callerRatePerSecond')
    const { redis } = options
    const limited = this.token.interval > 0 || this.caller.interval > 0
    this.redis = limited ? redis : undefined
    this.link = redis
    if (!redis) return
    redis.client.defineCommand('gwRatePause', { numberOfKeys: 2, lua: PAUSE_SCRIPT })
    redis.client.defineCommand('gwRatePaused', { numberOfKeys: 1, lua: PAUSED_SCRIPT })
    redis.subscribe(PAUSE_CHANNEL, (message) => this.received(message))
    redis.onListening(() => this.catchUp(redis))
  }

  /** The settings that limit the rate, by name: what a request refused a turn is told. */
  get settings(): string[] {
    return [
      ...(this.token.interval > 0 ? ['UPSTREAM_RATE_LIMIT'] : []),
      ...(this.caller.interval > 0 ? ['CALLER_RATE_LIMIT'] : []),
    ]
  }

  /** T, τ of the token's bucket and of the caller's, as TURN_LUA takes them. */
  get spacing(): number[] {
    const { token, caller } = this
    return [token.interval, token.tolerance, caller.interval, caller.tolerance]
  }

  /** The Redis keys TURN_LUA takes for one request: token TAT, caller's hold, caller TAT. */
  keys(tokenKey: string, callerKey: string): string[] {
    return [
      `gw:rate:${tokenKey}`,
      `gw:rate:hold:${tokenKey}:${callerKey}`,
      `gw:rate:caller:${callerKey}`,
    ]
  }

  /** Whether requests of `tokenKey` wait for a 429's pause, and until when (epoch ms). */
  pausedUntil(tokenKey: string): number | undefined {
    const until = this.paused.get(tokenKey)
    return until !== undefined && until > Date.now() ? until : undefined
  }

  /**
   * The turn of one request of `callerKey` with `tokenKey` (both keyed hashes, never a token),
   * decided in this process: what TURN_LUA decides in Redis. `maxWaitMs`: the longest the request
   * may wait for it.
   */
  takeLocally(tokenKey: string, callerKey: string, maxWaitMs: number): Turn {
    const now = Date.now()
    const until = this.pausedUntil(tokenKey)
    if (until !== undefined) return wait(until - now, maxWaitMs)
    const { token, caller } = this
    const ctat = this.callerTats.get(callerKey) ?? 0
    if (caller.interval > 0 && ctat - caller.tolerance > now) {
      return wait(ctat - caller.tolerance - now, maxWaitMs)
    }
    if (token.interval > 0) {
      const holdKey = `${tokenKey} ${callerKey}`
      const held = this.holds.get(holdKey) ?? 0
      const hold = held + HOLD_KEPT_MS > now ? held : 0
      if (hold > now) return wait(hold - now, maxWaitMs)
      if (hold > 0) this.holds.delete(holdKey)
      else {
        const tat = Math.max(this.tats.get(tokenKey) ?? now, now)
        const slot = Math.max(now, tat - token.tolerance)
        if (slot - now > maxWaitMs) return { kind: 'tooLate', waitMs: Math.ceil(slot - now) }
        this.tats.set(tokenKey, tat + token.interval, now)
        if (slot > now) {
          this.holds.set(holdKey, slot, now - HOLD_KEPT_MS)
          return { kind: 'later', waitMs: Math.ceil(slot - now) }
        }
      }
    }
    if (caller.interval > 0) {
      this.callerTats.set(callerKey, Math.max(ctat, now) + caller.interval, now)
    }
    return { kind: 'go' }
  }

  /**
   * The upstream answered 429 with Retry-After: no request of this token is sent before
   * `untilMs` (epoch ms), on any replica. Never rejects.
   */
  async pause(tokenKey: string, untilMs: number): Promise<void> {
    const pauseMs = Math.min(untilMs - Date.now(), MAX_WAIT_MS)
    if (!(pauseMs > 0)) return
    this.pauseLocally(tokenKey, untilMs)
    const redis = this.link
    if (!redis) return
    // Durations, not instants, cross to Redis: each side applies them on its own clock. Redis
    // down: the pause holds on this replica, as the rate budget then does.
    const ms = Math.ceil(pauseMs)
    const command = redis.client as unknown as PauseCommands
    const tat = this.token.interval > 0 ? `gw:rate:${tokenKey}` : ''
    const message = JSON.stringify({ tokenKey, pauseMs: ms })
    await redis
      .guard(() =>
        command.gwRatePause(
          PAUSED_KEY,
          tat,
          tokenKey,
          ms,
          this.token.tolerance,
          PAUSE_CHANNEL,
          message,
        ),
      )
      .catch(() => {})
  }

  /** Just subscribed (at start, after a reconnection): the pauses told meanwhile. */
  private catchUp(redis: RedisLink) {
    const command = redis.client as unknown as PauseCommands
    redis
      .guard(() => command.gwRatePaused(PAUSED_KEY))
      .then((paused) => {
        for (let i = 0; i + 1 < paused.length; i += 2) {
          this.pauseLocally(paused[i] as string, Date.now() + Number(paused[i + 1]))
        }
      })
      .catch(() => {})
  }

  private pauseLocally(tokenKey: string, untilMs: number) {
    const now = Date.now()
    if ((this.paused.get(tokenKey) ?? 0) < untilMs) this.paused.set(tokenKey, untilMs, now)
    const paused = untilMs + this.token.tolerance
    if (this.token.interval > 0 && (this.tats.get(tokenKey) ?? 0) < paused) {
      this.tats.set(tokenKey, paused, now)
    }
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
}

/** Instants (epoch ms) by key, swept of those that hold nothing back any more when it grows. */
class Times {
  private readonly map = new Map<string, number>()
  private sweepAt = MIN_SWEEP_SIZE

  get(key: string): number | undefined {
    return this.map.get(key)
  }

  delete(key: string): void {
    this.map.delete(key)
  }

  /** Sets `key` to `at`; when the map is large, entries at or before `passed` go. */
  set(key: string, at: number, passed: number): void {
    this.map.set(key, at)
    if (this.map.size < this.sweepAt) return
    for (const [k, value] of this.map) if (value <= passed) this.map.delete(k)
    this.sweepAt = Math.max(MIN_SWEEP_SIZE, 2 * this.map.size)
  }
}

/** Wait `ms`, or too late when that is past `maxWaitMs`. */
function wait(ms: number, maxWaitMs: number): Turn {
  const waitMs = Math.ceil(ms)
  return ms > maxWaitMs ? { kind: 'tooLate', waitMs } : { kind: 'later', waitMs }
}
