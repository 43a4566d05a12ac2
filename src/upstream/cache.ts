import { LRUCache } from 'lru-cache'
import { PREFIX, type RedisLink } from './redis.js'

/**
 * The cache of upstream reads across operations and replicas, in two tiers. In process: an LRU
 * bounded by its entries' bytes, holding parsed, frozen answers. With Redis: Redis behind it,
 * shared by every replica, holding each answer while it is fresh (`PX`, on Redis's clock). An
 * entry held here answers without asking Redis for RECHECK_MS, then is checked against Redis (one
 * MGET a tick): a refresh or a removal on another replica is seen within that time. An expired
 * entry is kept here CACHE_STALE_SECONDS, and handed down with the lookup for stale-if-error.
 * Keys hold the token's keyed hash, never a token.
 */

const RECHECK_MS = 1000

interface Entry {
  /** Frozen: one object is served to every operation that reads it. */
  value: unknown
  /** Which store of the key it is: Redis's copy says the same. */
  stamp: string
  freshUntil: number
  keptUntil: number
  checkedAt: number
  size: number
}

/** What the tiers hold: a fresh value, or an expired one that may answer a failure. */
export interface Found {
  value?: unknown
  stale?: unknown
}

export interface CacheOptions {
  ttlSeconds: number
  staleSeconds: number
  maxBytes: number
  redis?: RedisLink | undefined
}

let stores = 0

export class ReadCache {
  private readonly tier: LRUCache<string, Entry>

  constructor(private readonly options: CacheOptions) {
    const sizeCalculation = (entry: Entry) => Math.max(1, entry.size)
    this.tier = new LRUCache<string, Entry>({ maxSize: options.maxBytes, sizeCalculation })
  }

  get ttlSeconds(): number {
    return this.options.ttlSeconds
  }

  /** The Redis key of a read's cache key (where its lock is taken too). */
  redisKey(key: string): string {
    return `${PREFIX}read:${key}`
  }

  /** What the tiers hold for `key`; nothing for a `fresh` (no-cache) read. */
  async lookup(key: string, fresh: boolean): Promise<Found> {
    if (fresh) return {}
    const now = Date.now()
    let kept = this.tier.get(key)
    if (kept && kept.keptUntil <= now) {
      this.tier.delete(key)
      kept = undefined
    }
    const { redis } = this.options
    const fresher = kept && kept.freshUntil > now ? kept : undefined
    if (fresher && (!redis?.available || now - fresher.checkedAt < RECHECK_MS)) {
      return { value: fresher.value }
    }
    const stored = await redis?.get(this.redisKey(key))
    if (stored === undefined && fresher) return { value: fresher.value }
    const value = stored ? this.adopt(key, stored) : undefined
    return value === undefined ? { stale: kept?.value } : { value }
  }

  /** The answer Redis holds for `key` (`stored`, as a replica stored it), kept here too;
   *  undefined when it is nothing this version can read. */
  adopt(key: string, stored: string): unknown {
    const first = stored.indexOf(' ')
    const second = stored.indexOf(' ', first + 1)
    const stamp = stored.slice(first + 1, second)
    const kept = this.tier.get(key)
    if (kept?.stamp === stamp) {
      kept.checkedAt = Date.now()
      return kept.value
    }
    const freshUntil = Number(stored.slice(0, first))
    if (first < 0 || second < 0 || !(freshUntil > 0)) return undefined
    try {
      const value = deepFreeze(JSON.parse(stored.slice(second + 1)))
      return this.keep(key, value, stamp, freshUntil, stored.length - second)
    } catch {
      return undefined
    }
  }

  /** Stores an answer read now for `ttlSeconds` (0: not kept, and removed from both tiers).
   *  Resolves once Redis has it; never rejects. */
  async store(key: string, value: unknown, size: number, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return this.forget(key)
    const freshUntil = Date.now() + ttlSeconds * 1000
    const stamp = `${process.pid}.${++stores}`
    this.keep(key, deepFreeze(value), stamp, freshUntil, size)
    const { redis } = this.options
    if (!redis?.available) return
    const stored = `${freshUntil} ${stamp} ${JSON.stringify(value)}`
    const set = redis.run((c) => c.set(this.redisKey(key), stored, 'PX', ttlSeconds * 1000))
    await set.catch(() => {})
  }

  /** Removes `key` from both tiers: no replica answers it again once it looks at Redis. */
  async forget(key: string): Promise<void> {
    this.tier.delete(key)
    await this.options.redis?.run((c) => c.del(this.redisKey(key))).catch(() => {})
  }

  private keep(key: string, value: unknown, stamp: string, freshUntil: number, size: number) {
    const keptUntil = freshUntil + this.options.staleSeconds * 1000
    this.tier.set(key, { value, stamp, freshUntil, keptUntil, checkedAt: Date.now(), size })
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
    const valid = Number.isInteger(seconds) && seconds >= 0
    if (valid && (name === 's-maxage' || (name === 'max-age' && maxAge === undefined))) {
      maxAge = seconds
    }
  }
  return maxAge
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value
  Object.freeze(value)
  for (const inner of Object.values(value)) deepFreeze(inner)
  return value
}
