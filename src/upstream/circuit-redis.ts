import { REDIS_NOW_LUA } from './cache/redis.js'

/**
 * What circuits (src/upstream/circuit.ts) keep and run in Redis to share themselves between
 * replicas: the keys, the channel, and the scripts that count a failure (opening the circuit when
 * it must), give back a probe's claim and list the circuits open now.
 */

export const CHANNEL = 'gw:circuit'
/** Sorted set of the open circuits' keys, scored with when they opened (Redis's clock, ms). */
export const OPEN_KEY = 'gw:circuit:open'
export const countKey = (key: string) => `gw:circuit:failures:${key}`
/** Which probe of a half-open circuit is the one under way over every replica. */
export const probeKey = (key: string) => `gw:circuit:probe:${key}`
/** A probe's outcome reaches Redis within this after its deadline: its claim outlasts it so long. */
export const PROBE_REPORT_MS = 1000
/** A shared count of failures is forgotten after this long without a new one. */
export const COUNT_WINDOW_MS = 60_000

// KEYS: the circuit's count, OPEN_KEY, its probe's claim. ARGV: failures that open it,
// COUNT_WINDOW_MS, open ms, CHANNEL, the circuit's key, the probe's id ('' for none: a probe
// whose claim is the current one opens it whatever the count). Returns the count and 1 if opened.
export const FAILED_SCRIPT = `${REDIS_NOW_LUA}
local probe = ARGV[6] ~= '' and redis.call('GET', KEYS[3]) == ARGV[6]
local n = redis.call('INCR', KEYS[1])
if n < tonumber(ARGV[1]) and not probe then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('PUBLISH', ARGV[4], cjson.encode({key = ARGV[5], failures = n}))
  return {n, 0}
end
local now = redis_now()
redis.call('DEL', KEYS[1], KEYS[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
redis.call('ZADD', KEYS[2], now, ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PUBLISH', ARGV[4], cjson.encode({key = ARGV[5], open = true}))
return {n, 1}
`

// KEYS: the probe's claim. ARGV: the probe's id. Ends the claim if it is still that probe's.
export const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
`

// KEYS: OPEN_KEY. ARGV: open ms. Returns the circuits opened less than that long ago, each
// followed by how long ago (ms): durations, not instants, cross to the replica's clock.
export const OPEN_SCRIPT = `${REDIS_NOW_LUA}
local now = redis_now()
local open = redis.call('ZRANGEBYSCORE', KEYS[1], now - tonumber(ARGV[1]), '+inf', 'WITHSCORES')
for i = 2, #open, 2 do open[i] = tostring(now - tonumber(open[i])) end
return open
`

export interface CircuitCommands {
  gwCircuitFailed(
    count: string,
    open: string,
    claim: string,
    failures: number,
    windowMs: number,
    openMs: number,
    channel: string,
    key: string,
    probe: string,
  ): Promise<[count: number, opened: number]>
  gwCircuitsOpen(open: string, openMs: number): Promise<string[]>
  gwCircuitRelease(claim: string, probe: string): Promise<unknown>
}
