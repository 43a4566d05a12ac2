/**
 * One cached answer as both tiers keep it: its value, until when it is fresh (the TTL) and until
 * when it is kept (the stale window of stale-if-error), epoch ms of the replica that stored it.
 * In Redis it is one string, `<fresh until> <kept until> <JSON>`, so that the one script a read
 * runs before it is sent (src/upstream/begin.ts) tells fresh from stale without parsing it; a
 * read being sent holds its key with a lock instead (`\0<owner>`, then a space and the stale
 * entry it replaced, if any), which no entry can be mistaken for.
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

/** The lock a read being sent by `owner` holds its key with, keeping the stale entry it replaced. */
export function lockOf(owner: string, stale?: string): string {
  return stale === undefined ? `\0${owner}` : `\0${owner} ${stale}`
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
