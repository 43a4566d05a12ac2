/**
 * One cached answer as both tiers keep it: its value, until when it is fresh (the TTL) and until
 * when it is kept (the stale window of stale-if-error), epoch ms of the replica that stored it.
 * In Redis it is one string, `<fresh until> <kept until> <JSON>`, kept only while it is fresh, so
 * that a key missing is a key to read; a stale entry answers from the in-process tier of the
 * replicas that hold it. A read being sent holds its key with a lock instead (`\0<instance>:<id>
 * <until> <ms>`, src/upstream/begin.ts), which no entry can be mistaken for.
 */

export interface Entry {
  /** Frozen: one object is served to every operation that reads it. */
  value: unknown
  freshUntil: number
  keptUntil: number
  /** Its JSON's length: what it weighs in the in-process tier. */
  size: number
}

/** The entry for a value read now with `ttlSeconds` and `staleSeconds` to keep it past that. */
export function entryOf(
  value: unknown,
  json: string,
  ttlSeconds: number,
  staleSeconds: number,
): Entry {
  deepFreeze(value)
  const freshUntil = Date.now() + ttlSeconds * 1000
  return { value, freshUntil, keptUntil: freshUntil + staleSeconds * 1000, size: json.length }
}

export function encode(entry: Entry, json: string): string {
  return `${entry.freshUntil} ${entry.keptUntil} ${json}`
}

/** The entry a Redis string holds; undefined for a lock or anything else. */
export function decode(stored: string): Entry | undefined {
  const match = /^(\d+) (\d+) /.exec(stored)
  if (!match) return undefined
  const json = stored.slice(match[0].length)
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    return undefined
  }
  deepFreeze(value)
  return { value, freshUntil: Number(match[1]), keptUntil: Number(match[2]), size: json.length }
}

/** The owner part of the lock a read being sent by `owner` holds its key with. */
export function lockOf(owner: string): string {
  return `\0${owner}`
}

/** How far apart replicas' clocks may be before the end a lock says is not believed. */
const CLOCK_SKEW_MS = 1000

/**
 * How long from now a lock (or the `<until> <ms>` that announces it) may still last, by this
 * replica's clock. The end is its holder's: believed when it is no further than the lock's whole
 * length and not past by more than the clocks may differ; otherwise (the holder's clock ahead,
 * or behind while its lock is still in Redis) the whole length, so that neither makes a waiter
 * wait for ever nor ask again and again.
 */
export function lockEndsIn(lock: string): number {
  const [, until = '', length = ''] = /(\d+) (\d+)$/.exec(lock) ?? []
  const whole = Number(length) || CLOCK_SKEW_MS
  const left = Number(until) - Date.now()
  if (left > whole || !(left > -CLOCK_SKEW_MS)) return whole
  return Math.max(0, left)
}

/**
 * Seconds an answer may be reused, from the upstream's `Cache-Control` (`s-maxage` before
 * `max-age`): 0 for `no-store` or `no-cache`; undefined when it says nothing (the default TTL).
 */
export function ttlOf(cacheControl: string | undefined): number | undefined {
  if (!cacheControl) return undefined
  const directives = cacheControl.toLowerCase().split(',')
  let maxAge: number | undefined
  for (const directive of directives) {
    const [name, value] = directive.trim().split('=')
    if (name === 'no-store' || name === 'no-cache') return 0
    if (name === 's-maxage' || (name === 'max-age' && maxAge === undefined)) {
      const seconds = Number(value?.replace(/"/g, ''))
      if (Number.isInteger(seconds) && seconds >= 0) maxAge = seconds
    }
  }
  return maxAge
}

/** Freezes an answer and everything in it. */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return
  Object.freeze(value)
  for (const inner of Object.values(value)) deepFreeze(inner)
}
