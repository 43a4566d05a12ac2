import type { RedisLink } from './cache/redis.js'
import { TURN_LUA, type UpstreamRateLimiter } from './rate-limit.js'

/**
 * What a request asks Redis before it is sent, all in one round trip: for the first request of a
 * read through the cache, the shared entry (fresh: the read ends there) and, when there is none
 * or a stale one, the lock that tells every replica the read is being sent (src/upstream/cache/
 * entry.ts); and the request's rate turn (src/upstream/rate-limit.ts). The requests granted a
 * connection in one tick go together in one script, which announces the keys it locked on
 * `gw:reads` (a replica whose reads of them wait in their lanes takes them out to wait for the
 * answer); a lone read with no turn to take is one `SET … NX GET`.
 *
 * A lock names its holder's instance, which is alive while its subscribed connection listens on
 * `gw:alive:<instance>` (src/upstream/cache/shared-reads.ts): Redis itself drops that connection
 * when the process dies. A lock whose holder is gone is taken over by a replica that found it
 * so (`takeOver`), checked again here; a lock lasts at most `lockMs` in any case.
 */

export interface Begin {
  /** Redis key of the cached read's entry: looked up, and locked when missing or stale. */
  readKey?: string | undefined
  /** The lock's value when taken (src/upstream/cache/entry.ts `lockOf`). */
  lock?: string | undefined
  /** The instance whose lock on the entry may be taken over if it is still not alive. */
  takeOver?: string | undefined
  /** The request's rate turn: token and caller keys, and the longest it may wait for it. */
  turn?: { tokenKey: string; callerKey: string; maxWaitMs: number } | undefined
}

export type Answer =
  /** Send it; `locked`: it holds the entry's lock (in place of `stale`, the expired entry). */
  | { kind: 'go'; locked?: boolean; stale?: string | undefined }
  /** The entry is fresh: this string. */
  | { kind: 'hit'; stored: string }
  /** Another read of it was sent by the instance `owner` (its lock holds it). */
  | { kind: 'held'; owner: string }
  /** No turn now: ask again in `waitMs`, or it would come after the deadline. */
  | { kind: 'later' | 'tooLate'; waitMs: number }

/** The channel of announcements about reads: `s` (sent), and what src/upstream/cache uses. */
export const READS_CHANNEL = 'gw:reads'
/** The channel each instance listens on while it is alive (its name follows). */
export const ALIVE_PREFIX = 'gw:alive:'

// KEYS: 4 per request (entry, token TAT, caller's reserved turn, caller TAT). ARGV: the client's
// clock (ms; entries hold its times), how long a lock lasts, the channel, this process's
// instance id (which its announcement names), ALIVE_PREFIX, T τ cT cτ, then 4 per request:
// flags (1: look up and lock, 2: take a turn), lock value, longest wait (ms), instance whose
// lock may be taken over. Returns per request {0, 0, stale}: go, {1, entry}: hit, {2, owner}:
// held, {3, ms}: later, {4, ms}: too late.
const BEGIN_SCRIPT = `${TURN_LUA}
local clientNow, lockMs, channel, instance = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
local alivePrefix = ARGV[5]
local T, tau, cT, ctau = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local n = #KEYS / 4
local lookups = {}
for i = 1, n do
  if tonumber(ARGV[6 + 4 * i]) % 2 == 1 then lookups[#lookups + 1] = KEYS[4 * i - 3] end
end
local found = #lookups > 0 and redis.call('MGET', unpack(lookups)) or {}
-- A caller refused a turn is refused again for its other requests of the batch, unasked.
local now, j, results, sent, locked, refused = nil, 0, {}, {}, {}, {}
for i = 1, n do
  local flags, lock = tonumber(ARGV[6 + 4 * i]), ARGV[7 + 4 * i]
  local maxWait, takeOver = tonumber(ARGV[8 + 4 * i]), ARGV[9 + 4 * i]
  local key = KEYS[4 * i - 3]
  local answer, stale = nil, false
  if flags % 2 == 1 then
    j = j + 1
    local stored = locked[key] or found[j]
    if stored and string.byte(stored, 1) == 0 then
      local owner = string.match(stored, '^%z([^:]*)')
      local rest = string.match(stored, '^%z[^ ]* (.*)$')
      if takeOver ~= '' and owner == takeOver
        and redis.call('PUBSUB', 'NUMSUB', alivePrefix .. owner)[2] == 0 then
        stale = rest or false
      else
        answer = {2, owner}
      end
    elseif stored then
      if tonumber(string.match(stored, '^%d+') or 0) > clientNow then answer = {1, stored}
      else stale = stored end
    end
  end
  if not answer and flags >= 2 then
    if not now then
      local time = redis.call('TIME')
      now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
    end
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
      local value = stale and (lock .. ' ' .. stale) or lock
      redis.call('SET', key, value, 'PX', lockMs)
      locked[key] = value
      sent[#sent + 1] = key
    end
    answer = {0, 0, stale}
  end
  results[i] = answer
end
if #sent > 0 then redis.call('PUBLISH', channel, 's ' .. instance .. '\\n' .. table.concat(sent, '\\n')) end
return results
`

interface BeginCommand {
  gwBegin(...args: (string | number)[]): Promise<[number, number | string, string | null][]>
}

interface Asked {
  begin: Begin
  answer(answer: Answer | undefined): void
}

/** The instance a lock names. */
export const ownerOf = (lock: string) => lock.slice(1, lock.indexOf(':'))

export class Begins {
  private batch: Asked[] = []

  constructor(
    private readonly redis: RedisLink,
    private readonly limiter: UpstreamRateLimiter | undefined,
    /** Named in the announcements of the keys it locks (src/upstream/cache/shared-reads.ts). */
    private readonly instance: string,
    /** How long a lock lasts at most, its holder alive: past a read's UPSTREAM_TIMEOUT_MS. */
    private readonly lockMs: number,
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
    const lone = batch.length === 1 && only && !only.begin.turn && !only.begin.takeOver
    const answers = await this.redis
      .guard(() => (lone ? this.one(only.begin) : this.many(batch.map((asked) => asked.begin))))
      .catch(() => undefined)
    batch.forEach((asked, i) => {
      asked.answer(answers?.[i])
    })
  }

  /** A lone lookup and lock: one SET … NX GET, or the script when it finds a stale entry. */
  private async one(begin: Begin): Promise<Answer[]> {
    const { readKey = '', lock = '' } = begin
    const stored = (await this.redis.client.call(
      'SET',
      readKey,
      lock,
      'NX',
      'GET',
      'PX',
      this.lockMs,
    )) as string | null
    if (stored === null) return [{ kind: 'go', locked: true }]
    if (stored.startsWith('\0')) return [{ kind: 'held', owner: ownerOf(stored) }]
    if (Number(stored.slice(0, stored.indexOf(' '))) > Date.now()) return [{ kind: 'hit', stored }]
    // A stale entry: the script locks it in its place and keeps it (a second round trip).
    return this.many([begin])
  }

  private async many(batch: Begin[]): Promise<Answer[]> {
    const keys: string[] = []
    const args: (string | number)[] = []
    for (const begin of batch) {
      const { readKey, lock, turn, takeOver } = begin
      const rate = turn && this.limiter ? this.limiter.keys(turn.tokenKey, turn.callerKey) : []
      const entry = readKey ?? rate[0] ?? ''
      keys.push(entry, rate[0] ?? entry, rate[1] ?? entry, rate[2] ?? entry)
      args.push(
        (readKey ? 1 : 0) + (turn ? 2 : 0),
        lock ?? '',
        turn?.maxWaitMs ?? 0,
        takeOver ?? '',
      )
    }
    const spacing = this.limiter?.spacing ?? [0, 0, 0, 0]
    const command = this.redis.client as unknown as BeginCommand
    const replies = await command.gwBegin(
      keys.length,
      ...keys,
      Date.now(),
      this.lockMs,
      READS_CHANNEL,
      this.instance,
      ALIVE_PREFIX,
      ...spacing,
      ...args,
    )
    return replies.map(([code, a, stale], i): Answer => {
      switch (code) {
        case 0:
          if (batch[i]?.readKey === undefined) return { kind: 'go' }
          return stale === null ? { kind: 'go', locked: true } : { kind: 'go', locked: true, stale }
        case 1:
          return { kind: 'hit', stored: String(a) }
        case 2:
          return { kind: 'held', owner: String(a) }
        default:
          return { kind: code === 3 ? 'later' : 'tooLate', waitMs: Number(a) }
      }
    })
  }
}
