import { PREFIX, type RedisLink } from './redis.js'

/**
 * UPSTREAM_RATE_LIMIT per token and CALLER_RATE_LIMIT per caller as GCRA buckets: one number
 * each, the theoretical arrival time (TAT). With T = 1000 / rate ms and τ = 1000 − T (a full
 * bucket holds a second's worth), a request gets its turn at max(now, TAT − τ), which moves TAT
 * on by T; a turn past the longest wait takes nothing. A 429's Retry-After pauses its token. With
 * Redis the buckets are every replica's, on Redis's clock (one script a tick for every request
 * asked in it); while Redis is down each process keeps its own.
 */

// KEYS: TAT keys. ARGV: T, τ of the token bucket and of the caller's; then per request its token
// key's index, its caller key's (0: none), its longest wait (ms) and a pause (ms). Returns waits.
const TURNS = `
local time = redis.call('TIME')
local now = time[1] * 1000 + time[2] / 1000
local tats = redis.call('MGET', unpack(KEYS))
for k = 1, #KEYS do tats[k] = tonumber(tats[k]) or 0 end
local waits, dirty = {}, {}
for i = 5, #ARGV, 4 do
  local slot, pause = now, tonumber(ARGV[i + 3])
  for b = 0, 1 do
    local k = tonumber(ARGV[i + b])
    if k > 0 then slot = math.max(slot, tats[k] - ARGV[2 + 2 * b]) end
  end
  for b = 0, 1 do
    local k, T = tonumber(ARGV[i + b]), tonumber(ARGV[1 + 2 * b])
    if k > 0 and pause > 0 then tats[k] = math.max(tats[k], now + pause + ARGV[2]); dirty[k] = 1
    elseif k > 0 and T > 0 and slot - now <= tonumber(ARGV[i + 2]) then
      tats[k] = math.max(tats[k], slot) + T; dirty[k] = 1
    end
  end
  waits[#waits + 1] = math.ceil(slot - now)
end
for k in pairs(dirty) do
  redis.call('SET', KEYS[k], tostring(tats[k]), 'PX', math.max(1, math.ceil(tats[k] - now)))
end
return waits
`

type Keys = [token: string, caller: string | undefined]

interface Asked {
  keys: Keys
  maxWaitMs: number
  pauseMs: number
  answer(waitMs: number | undefined): void
}

export class RateLimiter {
  /** T and τ of the token's bucket, then of the caller's (0, 0: no limit). */
  private readonly spacing: number[]
  private readonly tats = new Map<string, number>()
  /** Until when each token waits for a 429 (epoch ms, this process's clock). */
  private readonly paused = new Map<string, number>()
  private batch: Asked[] = []

  constructor(
    perToken?: number,
    perCaller?: number,
    private readonly redis?: RedisLink,
  ) {
    const bucket = (rate?: number) =>
      rate ? [1000 / rate, Math.max(0, 1000 - 1000 / rate)] : [0, 0]
    this.spacing = [...bucket(perToken), ...bucket(perCaller)]
    redis?.client.defineCommand('gwTurns', { lua: TURNS })
  }

  /** The settings that limit the rate, by name. */
  get settings(): string[] {
    const names = ['UPSTREAM_RATE_LIMIT', 'CALLER_RATE_LIMIT']
    return names.filter((_, b) => this.spacing[2 * b])
  }

  /** Until when requests of `tokenKey` wait for the upstream's 429, if they do. */
  pausedUntil(tokenKey: string): number | undefined {
    const until = this.paused.get(tokenKey) ?? 0
    if (until > Date.now()) return until
    this.paused.delete(tokenKey)
  }

  /** Takes the turn of a request of `callerKey` with `tokenKey` (keyed hashes): the ms until it
   *  comes (0: now). A turn more than `maxWaitMs` away takes nothing. */
  turn(tokenKey: string, callerKey: string, maxWaitMs: number): number | Promise<number> {
    const paused = this.pausedUntil(tokenKey)
    if (paused) return Math.ceil(paused - Date.now())
    if (!this.spacing[0] && !this.spacing[2]) return 0
    const caller = this.spacing[2] ? `${PREFIX}caller:${callerKey}` : undefined
    const keys: Keys = [`${PREFIX}rate:${tokenKey}`, caller]
    if (!this.redis?.available) return this.locally(keys, maxWaitMs, 0)
    return this.ask(keys, maxWaitMs, 0).then((wait) => wait ?? this.locally(keys, maxWaitMs, 0))
  }

  /** The upstream answered 429 with Retry-After: no request of `tokenKey` for `ms`, here, and
   *  with a rate on every replica (the shared bucket starts again after it). */
  pause(tokenKey: string, ms: number): void {
    this.paused.set(tokenKey, Math.max(this.paused.get(tokenKey) ?? 0, Date.now() + ms))
    const keys: Keys = [`${PREFIX}rate:${tokenKey}`, undefined]
    if (!this.spacing[0]) return
    this.locally(keys, 0, ms)
    if (this.redis?.available) void this.ask(keys, 0, ms)
  }

  /** What TURNS does, in this process. */
  private locally(keys: Keys, maxWaitMs: number, pauseMs: number): number {
    const { tats, spacing } = this
    const now = Date.now()
    const tat = (b: number) => tats.get(keys[b] ?? '') ?? 0
    const slot = Math.max(
      now,
      ...[0, 1].map((b) => (keys[b] ? tat(b) - (spacing[2 * b + 1] ?? 0) : now)),
    )
    for (const b of [0, 1]) {
      const [key, T = 0, tau = 0] = [keys[b], spacing[2 * b], spacing[2 * b + 1]]
      if (key && pauseMs > 0) tats.set(key, Math.max(tat(b), now + pauseMs + tau))
      else if (key && T > 0 && slot - now <= maxWaitMs) tats.set(key, Math.max(tat(b), slot) + T)
    }
    if (tats.size > 4096) for (const [key, at] of tats) if (at < now) tats.delete(key)
    return Math.ceil(slot - now)
  }

  /** Asks Redis, with every other request of this tick; undefined when Redis fails. */
  private ask(keys: Keys, maxWaitMs: number, pauseMs: number) {
    return new Promise<number | undefined>((answer) => {
      if (this.batch.length === 0) setImmediate(() => this.flush())
      this.batch.push({ keys, maxWaitMs, pauseMs, answer })
    })
  }

  private async flush() {
    const [batch, keys] = [this.batch, [] as string[]]
    this.batch = []
    const index = (key?: string) => (key ? keys.indexOf(key) + 1 || keys.push(key) : 0)
    const args = batch.flatMap((a) => [...a.keys.map(index), Math.max(0, a.maxWaitMs), a.pauseMs])
    const run = (c: unknown) => (c as Turns).gwTurns(keys.length, ...keys, ...this.spacing, ...args)
    const waits = await this.redis?.run(run).catch(() => undefined)
    for (const [i, asked] of batch.entries()) asked.answer(waits?.[i])
  }
}

interface Turns {
  gwTurns(...args: (string | number)[]): Promise<number[]>
}
