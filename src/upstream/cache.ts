import { LRUCache } from 'lru-cache'
import { type RedisLink, readKey } from './redis.js'

/** Stage 1: an LRU of parsed, frozen answers bounded in bytes, in front of Redis (shared while
 *  fresh, checked again after RECHECK_MS); expired, kept CACHE_STALE_SECONDS for stale-if-error. */

const RECHECK_MS = 1000

/** `seenAt`: when it was last found in Redis (or put there) by this process. */
type Entry = { value: unknown; size: number; freshUntil: number; keptUntil: number; seenAt: number }

type CacheOptions = {
  ttlSeconds: number
  staleSeconds: number
  maxBytes: number
  redis?: RedisLink
}

export class ReadCache {
  private readonly tier: LRUCache<string, Entry>

  constructor(readonly options: CacheOptions) {
    const sizeCalculation = (entry: Entry) => Math.max(1, entry.size)
    this.tier = new LRUCache<string, Entry>({ maxSize: options.maxBytes, sizeCalculation })
  }

  /** A fresh value, or an expired one that may answer a failure; nothing for a no-cache read. */
  async lookup(key: string, fresh: boolean): Promise<{ value?: unknown; stale?: unknown }> {
    if (fresh) return {}
    const { redis } = this.options
    const [now, kept] = [Date.now(), this.tier.get(key)]
    const fresher = kept && kept.freshUntil > now ? kept : undefined
    const recheck = redis?.available && now - (fresher?.seenAt ?? 0) >= RECHECK_MS
    const stored = recheck ? await redis?.get(readKey(key)) : undefined
    if (stored === undefined && fresher) return { value: fresher.value }
    const value = stored ? this.adopt(key, stored) : undefined
    if (value !== undefined) return { value }
    // Past CACHE_STALE_SECONDS an entry answers nothing (it goes when the LRU needs the room).
    return { stale: kept && kept.keptUntil > now ? kept.value : undefined }
  }

  /** What Redis holds for `key` (`<fresh until> <JSON>`), kept here if this version reads it. */
  adopt(key: string, stored: string): unknown {
    const space = stored.indexOf(' ')
    const freshUntil = Number(stored.slice(0, space))
    if (space < 0 || !(freshUntil > 0)) return undefined
    try {
      const value = deepFreeze(JSON.parse(stored.slice(space + 1)))
      return this.keep(key, value, freshUntil, stored.length - space)
    } catch {
      return undefined
    }
  }

  /** Keeps `value` in both tiers; false when Redis did not take it (down, or the TTL is none). */
  async store(key: string, value: unknown, size: number, ttlSeconds: number): Promise<boolean> {
    if (ttlSeconds <= 0) {
      await this.forget(key)
      return false
    }
    const freshUntil = Date.now() + ttlSeconds * 1000
    this.keep(key, deepFreeze(value), freshUntil, size)
    if (!this.options.redis) return true
    const [stored, px] = [`${freshUntil} ${JSON.stringify(value)}`, ttlSeconds * 1000]
    const set = this.options.redis.run((c) => c.set(readKey(key), stored, 'PX', px))
    return set.then(
      () => true,
      () => false,
    )
  }

  /** Removes `key` from both tiers: no replica answers it again once it looks at Redis. */
  async forget(key: string): Promise<void> {
    this.tier.delete(key)
    await this.options.redis?.run((c) => c.del(readKey(key))).catch(() => {})
  }

  private keep(key: string, value: unknown, freshUntil: number, size: number) {
    const keptUntil = freshUntil + this.options.staleSeconds * 1000
    this.tier.set(key, { value, freshUntil, keptUntil, seenAt: Date.now(), size })
    return value
  }
}

/** Seconds an answer may be reused by the upstream's `Cache-Control` (`s-maxage` before
 *  `max-age`): 0 for `no-store` or `no-cache`; undefined when it says nothing. */
export function ttlOf(cacheControl = ''): number | undefined {
  const directives = cacheControl.toLowerCase()
  if (/(^|,)\s*no-(store|cache)\b/.test(directives)) return 0
  const found = S_MAXAGE.exec(directives) ?? MAX_AGE.exec(directives)
  return found ? Number(found[1]) : undefined
}
const S_MAXAGE = /(?:^|,)\s*s-maxage\s*=\s*"?(\d+)"?\s*(?:,|$)/
const MAX_AGE = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?\s*(?:,|$)/

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value
  Object.freeze(value)
  for (const inner of Object.values(value)) deepFreeze(inner)
  return value
}
