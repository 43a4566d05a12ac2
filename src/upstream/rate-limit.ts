import { PREFIX, type RedisLink } from './redis.js'

/** UPSTREAM_RATE_LIMIT per token, CALLER_RATE_LIMIT per caller: GCRA, a theoretical arrival time
 *  (TAT) each; T = 1000 / rate ms, τ = 1000 − T (a second's burst): a turn comes at max(now,
 *  TAT − τ), moving TAT on by T. With Redis, all replicas'; a 429's Retry-After pauses a token. */

// KEYS: the token's TAT key, the caller's (when limited). ARGV: T and τ of each, the longest wait
// (ms), a pause (ms; 0: none). Returns the wait (ms); one past the longest took nothing.
const TURN = `
local time = redis.call('TIME')
local now = time[1] * 1000 + time[2] / 1000
local tats, slot = redis.call('MGET', unpack(KEYS)), now
for k = 1, #KEYS do
  tats[k] = tonumber(tats[k]) or 0
  slot = math.max(slot, tats[k] - ARGV[2 * k])
end
for k = 1, #KEYS do
  local T, tat = tonumber(ARGV[2 * k - 1]), tats[k]
  if tonumber(ARGV[6]) > 0 then tat = math.max(tat, now + ARGV[6] + ARGV[2])
  elseif T > 0 and slot - now <= tonumber(ARGV[5]) then tat = math.max(tat, slot) + T end
  if tat ~= tats[k] then redis.call('SET', KEYS[k], tostring(tat), 'PX', math.ceil(tat - now)) end
end
return math.ceil(slot - now)
`

export class RateLimiter {
  /** T and τ of the token's bucket, then of the caller's (0, 0: no limit). */
  private readonly spacing: number[]
  private readonly tats = new Map<string, number>()
  private readonly paused = new Map<string, number>()

  constructor(
    perToken?: number,
    perCaller?: number,
    private readonly redis?: RedisLink,
  ) {
    const bucket = (rate = 0) => (rate ? [1000 / rate, Math.max(0, 1000 - 1000 / rate)] : [0, 0])
    this.spacing = [...bucket(perToken), ...bucket(perCaller)]
    redis?.client.defineCommand('gwTurn', { lua: TURN })
  }

  get settings(): string[] {
    return ['UPSTREAM_RATE_LIMIT', 'CALLER_RATE_LIMIT'].filter((_, b) => this.spacing[2 * b])
  }

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
    const keys = [`${PREFIX}rate:${tokenKey}`]
    if (this.spacing[2]) keys.push(`${PREFIX}caller:${callerKey}`)
    return this.take(keys, maxWaitMs, 0)
  }

  /** The upstream answered 429 with Retry-After: no request of `tokenKey` for `ms`, here, and
   *  with a rate on every replica (the shared bucket starts again after it). */
  pause(tokenKey: string, ms: number): void {
    this.paused.set(tokenKey, Math.max(this.paused.get(tokenKey) ?? 0, Date.now() + ms))
    if (this.spacing[0]) void this.take([`${PREFIX}rate:${tokenKey}`], 0, ms)
  }

  /** In Redis while it answers, else in this process: the same algorithm. */
  private take(keys: string[], maxWaitMs: number, pauseMs: number): number | Promise<number> {
    const locally = () => this.locally(keys, maxWaitMs, pauseMs)
    if (!this.redis?.available) return locally()
    const args = [...keys, ...this.spacing, Math.max(0, maxWaitMs), pauseMs]
    const turn = (c: unknown) => (c as Turn).gwTurn(keys.length, ...args)
    return this.redis.run(turn).catch(locally)
  }

  private locally(keys: string[], maxWaitMs: number, pauseMs: number): number {
    const { tats, spacing } = this
    const now = Date.now()
    const tat = (k: number) => tats.get(keys[k] ?? '') ?? 0
    const slot = Math.max(now, ...keys.map((_, k) => tat(k) - (spacing[2 * k + 1] ?? 0)))
    keys.forEach((key, k) => {
      const [T = 0, tau = 0] = spacing.slice(2 * k)
      if (pauseMs > 0) tats.set(key, Math.max(tat(k), now + pauseMs + tau))
      else if (T > 0 && slot - now <= maxWaitMs) tats.set(key, Math.max(tat(k), slot) + T)
    })
    if (tats.size > 4096) for (const [key, at] of tats) if (at < now) tats.delete(key)
    return Math.ceil(slot - now)
  }
}

type Turn = { gwTurn(...args: (string | number)[]): Promise<number> }
