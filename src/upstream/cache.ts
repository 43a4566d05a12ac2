import { LRUCache } from 'lru-cache'
import { type RedisLink, readKey } from './redis.js'

/** Stage 1, the cache of reads. In process: an LRU bounded in bytes of parsed, frozen answers.
 *  With Redis behind it, shared by the replicas: each answer while fresh (`PX`, Redis's clock).
 *  An entry held here is checked against Redis once a second (a refresh elsewhere seen that soon);
 *  expired, it is kept CACHE_STALE_SECONDS and handed down for stale-if-error. */

const RECHECK_MS = 1000

/** `seenAt`: when it was last found in Redis (or put there) by this process. */
type Entry = { value: unknown; size: number; freshUntil: number; keptUntil: number; seenAt: number }

export interface CacheOptions {
  ttlSeconds: number
  staleSeconds: number
  maxBytes: number
  redis?: RedisLink | undefined
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

  /** What Redis holds for `key` (`<fresh until> <JSON>`), kept here too; undefined when it is
   *  nothing this version reads. */
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

  /** Stores an answer read now for `ttlSeconds` (0: kept nowhere, and removed). Resolves once
   *  Redis has it; never rejects. */
  async store(key: string, value: unknown, size: number, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return this.forget(key)
    const freshUntil = Date.now() + ttlSeconds * 1000
    this.keep(key, deepFreeze(value), freshUntil, size)
    const stored = `${freshUntil} ${JSON.stringify(value)}`
    const px = ttlSeconds * 1000
    await this.options.redis?.run((c) => c.set(readKey(key), stored, 'PX', px)).catch(() => {})
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
export function ttlOf(cacheControl: string | undefined): number | undefined {
  let maxAge: number | undefined
  for (const directive of cacheControl?.toLowerCase().split(',') ?? []) {
    const [name, value] = directive.trim().split('=')
    if (name === 'no-store' || name === 'no-cache') return 0
    const seconds = Number(value?.replace(/"/g, ''))
    if (!Number.isInteger(seconds) || seconds < 0) continue
    if (name === 's-maxage' || (name === 'max-age' && maxAge === undefined)) maxAge = seconds
  }
  return maxAge
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value
  Object.freeze(value)
  for (const inner of Object.values(value)) deepFreeze(inner)
  return value
}
