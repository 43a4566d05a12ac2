import { REDIS_COMMAND_TIMEOUT_MS, REDIS_NOW_LUA, type RedisLink } from './cache/redis.js'
import { READS_CHANNEL } from './cache/shared-reads.js'
import { TURN_LUA, type UpstreamRateLimiter } from './rate-limit.js'

/**
 * What a request asks Redis before it is sent, all in one round trip: for the first request of a
 * read through the cache, the shared entry (the read ends there when it is found) and, when there
 * is none, the lock that tells every replica the read is being sent (src/upstream/cache/entry.ts);
 * and the request's rate turn (src/upstream/rate-limit.ts). The requests granted a connection in
 * one tick go together in one script, which reads every key it needs with one MGET, writes each
 * rate key once, and announces the keys it locked on `gw:reads` when another replica listens (a
 * replica whose reads of them wait in their lanes takes them out to wait for the answer); a lone
 * read with no turn to take is one `SET … NX GET`.
 *
 * A lock lasts as long as the read it stands for may (its UPSTREAM_TIMEOUT_MS from its first
 * send) and says until when, so that a replica waiting for it knows when to look again: a holder
 * that died or froze holds nobody past that.
 */

export interface Begin {
  /** Redis key of the cached read's entry: looked up, and locked when missing. */
  readKey?: string | undefined
  /** The lock's owner (src/upstream/cache/entry.ts `lockOf`). */
  lock?: string | undefined
  /** How long the lock lasts: the longest the read may still take. */
  lockMs?: number | undefined
  /** The request's rate turn: token and caller keys, and the longest it may wait for it. */
  turn?: { tokenKey: string; callerKey: string; maxWaitMs: number } | undefined
}

export type Answer =
  /** Send it; `locked`: it holds the entry's lock. */
  | { kind: 'go'; locked?: boolean }
  /** The entry: this string. */
  | { kind: 'hit'; stored: string }
  /** Another read of it was sent: this lock holds it (src/upstream/cache/entry.ts `lockEndsIn`). */
  | { kind: 'held'; lock: string }
  /** No turn now: ask again in `waitMs`, or it would come after the deadline. */
  | { kind: 'later' | 'tooLate'; waitMs: number }

// KEYS: 4 per request (entry, token TAT, caller's reserved turn, caller TAT). ARGV: T τ cT cτ,
// the channel ('' for no announcement), this process's instance id, then 4 per request: flags (1: look up and lock, 2:
// take a turn), lock value, its ms, longest wait (ms). Returns per request {0}: go, {1, entry}:
// hit, {2, lock}: held, {3, ms}: later, {4, ms}: too late.
const BEGIN_SCRIPT = `${REDIS_NOW_LUA}
local vals, dirty = {}, {}
local function get(k) return vals[k] end
local function put(k, v, ms) vals[k] = v; dirty[k] = ms end
${TURN_LUA}
local T, tau, cT, ctau = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local n = #KEYS / 4
local names, sent = {}, {}
for i = 1, n do
  local flags = tonumber(ARGV[3 + 4 * i])
  local from, to = (flags % 2 == 1) and 3 or 2, (flags >= 2) and 0 or 3
  for k = 4 * i - from, 4 * i - to do
    if vals[KEYS[k]] == nil then vals[KEYS[k]] = false; names[#names + 1] = KEYS[k] end
  end
end
if #names > 0 then
  local found = redis.call('MGET', unpack(names))
  for k = 1, #names do vals[names[k]] = found[k] end
end
-- A caller refused a turn is refused again for its other requests of the batch, unasked.
local now, results, refused = nil, {}, {}
for i = 1, n do
  local flags, lock = tonumber(ARGV[3 + 4 * i]), ARGV[4 + 4 * i]
  local lockMs, maxWait = tonumber(ARGV[5 + 4 * i]), tonumber(ARGV[6 + 4 * i])
  local key = KEYS[4 * i - 3]
  local answer = nil
  if flags % 2 == 1 and vals[key] then
    answer = {string.byte(vals[key], 1) == 0 and 2 or 1, vals[key]}
  end
  if not answer and flags >= 2 then
    now = now or redis_now()
    local ms = refused[KEYS[4 * i - 1]]
    local code = ms and ((ms > maxWait) and 2 or 1) or nil
    if not code then
      code, ms = take_turn(KEYS[4 * i - 2], KEYS[4 * i - 1], KEYS[4 * i], now, T, tau, cT, ctau, maxWait)
      if code ~= 0 then refused[KEYS[4 * i - 1]] = ms end
    end
    if code ~= 0 then answer = {code + 2, ms} end
  end
  if not answer then
    if flags % 2 == 1 then
      redis.call('SET', key, lock, 'PX', lockMs)
      vals[key] = lock
      sent[#sent + 1] = key .. ' ' .. string.match(lock, '(%d+ %d+)$')
    end
    answer = {0}
  end
  results[i] = answer
end
for k, ms in pairs(dirty) do
  if vals[k] then redis.call('SET', k, vals[k], 'PX', ms) else redis.call('DEL', k) end
end
if #sent > 0 and ARGV[5] ~= '' then redis.call('PUBLISH', ARGV[5], 's ' .. ARGV[6] .. '\\n' .. table.concat(sent, '\\n')) end
return results
`

interface BeginCommand {
  gwBegin(...args: (string | number)[]): Promise<[number, (number | string)?][]>
}

interface Asked {
  begin: Begin
  answer(answer: Answer | undefined): void
}

export class Begins {
  private batch: Asked[] = []

  constructor(
    private readonly redis: RedisLink,
    private readonly limiter: UpstreamRateLimiter | undefined,
    /** Named in the announcements of the keys it locks (src/upstream/cache/shared-reads.ts). */
    private readonly instance: string,
    /** Whether to announce them: false while no other replica listens. */
    private readonly announce: () => boolean = () => true,
  ) {
    redis.client.defineCommand('gwBegin', { lua: BEGIN_SCRIPT })
  }

  /**
   * What Redis answers `begin`, asked together with every other begin of this tick; undefined
   * when Redis fails (the caller then decides on its own: no lock, its turn counted locally).
   */
  ask(begin: Begin): Promise<Answer | undefined> {
    return new Promise((answer) => {
      if (this.batch.length === 0) setImmediate(() => this.flush())
      this.batch.push({ begin, answer })
    })
  }

  private async flush() {
    const batch = this.batch
    this.batch = []
    const [only] = batch
    const lone = batch.length === 1 && only && !only.begin.turn
    const answers = await this.redis
      .guard(() => (lone ? this.one(only.begin) : this.many(batch.map((asked) => asked.begin))))
      .catch(() => undefined)
    batch.forEach((asked, i) => {
      asked.answer(answers?.[i])
    })
  }

  /** A lone lookup and lock: one SET … NX GET. */
  private async one(begin: Begin): Promise<Answer[]> {
    const { readKey = '' } = begin
    const [value, ms] = lockTaken(begin)
    const stored = (await this.redis.client.call('SET', readKey, value, 'NX', 'GET', 'PX', ms)) as
      | string
      | null
    return [answerOf(stored === null ? 0 : stored.startsWith('\0') ? 2 : 1, stored ?? undefined)]
  }

  private async many(batch: Begin[]): Promise<Answer[]> {
    const keys: string[] = []
    const args: (string | number)[] = []
    for (const begin of batch) {
      const { readKey, turn } = begin
      const rate = turn && this.limiter ? this.limiter.keys(turn.tokenKey, turn.callerKey) : []
      const entry = readKey ?? rate[0] ?? ''
      keys.push(entry, rate[0] ?? entry, rate[1] ?? entry, rate[2] ?? entry)
      args.push((readKey ? 1 : 0) + (turn ? 2 : 0), ...lockTaken(begin), turn?.maxWaitMs ?? 0)
    }
    const spacing = this.limiter?.spacing ?? [0, 0, 0, 0]
    const command = this.redis.client as unknown as BeginCommand
    const replies = await command.gwBegin(
      keys.length,
      ...keys,
      ...spacing,
      this.announce() ? READS_CHANNEL : '',
      this.instance,
      ...args,
    )
    return replies.map(([code, a], i) =>
      code === 0 && batch[i]?.readKey === undefined ? { kind: 'go' } : answerOf(code, a),
    )
  }
}

/**
 * The lock's value and how long it lasts (ms). The value says its owner, until when it lasts
 * (epoch ms, this replica's clock) and how long, so that a replica whose clock differs still
 * knows how long to wait at most. It starts when Redis takes it, the read's time once the answer
 * is back: the longest that takes is added, so that a read never outlives its lock.
 */
function lockTaken({ lock = '', lockMs = 0 }: Begin): [string, number] {
  const ms = Math.ceil(lockMs) + REDIS_COMMAND_TIMEOUT_MS
  return [`${lock} ${Date.now() + ms} ${ms}`, ms]
}

function answerOf(code: number, a: number | string | undefined): Answer {
  switch (code) {
    case 0:
      return { kind: 'go', locked: true }
    case 1:
      return { kind: 'hit', stored: String(a) }
    case 2:
      return { kind: 'held', lock: String(a) }
    default:
      return { kind: code === 3 ? 'later' : 'tooLate', waitMs: Number(a) }
  }
}
