import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { BentoCache, bentostore } from 'bentocache'
import { memoryDriver } from 'bentocache/drivers/memory'
import { redisDriver } from 'bentocache/drivers/redis'
import type { Redis } from 'ioredis'
import { LRUCache } from 'lru-cache'
import type { RedisLink } from './redis.js'

/**
 * The cache of upstream reads across operations (and, with Redis, across replicas). It knows
 * nothing of GraphQL nor of HTTP: it is handed a key (which the client makes from the token's
 * keyed hash, the language and the canonical path and query) and a loader.
 *
 * bentocache does the tiers (a byte-bounded LRU in process, Redis behind it), the grace period
 * (an expired entry is kept CACHE_STALE_SECONDS for stale-if-error), per-key locking within the
 * process and a circuit breaker around Redis. On top of it this module adds what bentocache does
 * not: telling the caller how each read was served (hit, miss, stale, shared), sharing a load in
 * flight with concurrent operations, and, across replicas, a short Redis lock so that one
 * replica loads while the others wait for its answer, and a refresh (`Cache-Control: no-cache`)
 * announced to the others, which drop their in-process copy (not with bentocache's bus, which
 * our breaker would break: docs/caching-and-replicas.md).
 */

/** How a read was served: from the cache, by the upstream, stale after an upstream failure, or
 *  by another operation's (or replica's) load in flight. */
export type CacheResult = 'hit' | 'miss' | 'stale' | 'shared'

export interface Served<T> {
  value: T
  result: CacheResult
}

/** A loader's answer and the upstream's `Cache-Control`, which overrides the default TTL. */
export interface Loaded<T> {
  value: T
  cacheControl?: string | undefined
}

export interface ReadOptions {
  /** The caller sent `Cache-Control: no-cache`: nothing cached is served, the answer is stored. */
  fresh: boolean
  /** When the caller's operation started: a fresh read joins only loads that started after it. */
  startedAt: number
  /** The caller's end: waiting for someone else's load stops with it. */
  signal: AbortSignal
  /** The caller's deadline (epoch ms): waiting for another replica's load stops by then. */
  deadline: number
}

export interface ReadCacheOptions {
  ttlSeconds: number
  staleSeconds: number
  maxBytes: number
  /** Set: the second tier and the in-flight locks shared by every replica on it. */
  redis?: RedisLink | undefined
  /** Failures a stale entry may answer for (upstream 5xx, 429, connection, timeout). */
  staleAllowed(error: unknown): boolean
  /** Failures that belong to the loading caller alone (its budget, its cancellation): an
   *  operation that joined the load makes its own instead of sharing them. */
  callersOwn(error: unknown): boolean
}

interface InFlight {
  promise: Promise<Served<unknown>>
  startedAt: number
}

/** How often a replica waiting for another's load looks for its answer. */
const POLL_MS = 15
/** bentocache's prefix of every key, in Redis and in the in-process tier. */
const PREFIX = 'gw:reads'
/** Where a replica that refreshed a key names it (after its instance id and a space). */
export const REFRESHED_CHANNEL = 'gw:reads:refreshed'

export class ReadCache {
  private readonly bento: BentoCache<{ reads: ReturnType<typeof bentostore> }>
  private readonly inProcess: LRUCache<string, string | object>
  private readonly inFlight = new Map<string, InFlight>()
  private readonly instance = randomUUID()

  constructor(private readonly options: ReadCacheOptions) {
    const { redis } = options
    // An LRU of our own: bentocache's would also cap the number of entries at 1,000, whatever
    // their size. Without Redis, entries are kept as objects, not JSON: a hit would otherwise
    // parse its answer again (the largest part of a cached operation's CPU); the answers are
    // frozen (see read), so no caller can change what another is served. With Redis they stay
    // JSON: bentocache copies what it reads from Redis into this tier serialized, and then could
    // not read it back from an unserialized tier. Each entry is weighed by its JSON's bytes.
    const serialize = redis !== undefined
    const inProcess = new LRUCache<string, string | object>({
      maxSize: options.maxBytes,
      sizeCalculation: (entry) =>
        Buffer.byteLength(typeof entry === 'string' ? entry : JSON.stringify(entry)),
    })
    this.inProcess = inProcess
    // The driver takes an LRU of its own making, though its options type does not say so.
    const l1 = { cacheInstance: inProcess, serialize } as Parameters<typeof memoryDriver>[0]
    let store = bentostore().useL1Layer(memoryDriver(l1))
    if (redis) {
      store = store.useL2Layer(redisDriver({ connection: redis.client as Redis }))
      redis.subscribe(REFRESHED_CHANNEL, (message) => this.refreshedElsewhere(message))
    }
    this.bento = new BentoCache({
      default: 'reads',
      prefix: PREFIX,
      stores: { reads: store },
      ttl: options.ttlSeconds * 1000,
      // The entry is kept this long from when it was stored: TTL, then the stale window.
      grace: options.staleSeconds > 0 ? (options.ttlSeconds + options.staleSeconds) * 1000 : false,
      // No backoff: during an outage every read tries the upstream again (the retry budget
      // bounds it), so a stale answer is always reported as stale.
      graceBackoff: 0,
      // Redis down or slow: the in-process tier answers and Redis is not asked again for a while.
      suppressL2Errors: true,
      l2CircuitBreakerDuration: 5000,
      // Every Redis use goes through one breaker (bentocache types the wrapper as synchronous; it awaits it).
      ...(redis ? { internalOperationWrapper: redis.guard as <T>(fn: () => T) => T } : {}),
    })
  }

  /**
   * The value for `key`: from the cache, from a load in flight, or from `load` (stored when the
   * upstream allows). When `load` fails with a failure `staleAllowed` accepts and an expired
   * entry is still within its stale window, that entry answers (result `stale`).
   */
  async read<T>(key: string, options: ReadOptions, load: () => Promise<Loaded<T>>) {
    const shared = this.inFlight.get(key)
    if (shared && (!options.fresh || shared.startedAt >= options.startedAt)) {
      try {
        const { value, result } = await abortable(shared.promise, options.signal)
        // A stale answer stays stale for everyone who gets it.
        return {
          value: value as T,
          result: result === 'stale' ? 'stale' : 'shared',
        } satisfies Served<T>
      } catch (error) {
        // The loader's own failure (its budget, its departure) is not ours: load for ourselves.
        if (options.signal.aborted || !this.options.callersOwn(error)) throw error
      }
    }
    const promise = this.readThrough(key, options, load)
    const entry: InFlight = { promise, startedAt: Date.now() }
    this.inFlight.set(key, entry)
    try {
      return await promise
    } finally {
      if (this.inFlight.get(key) === entry) this.inFlight.delete(key)
    }
  }

  private async readThrough<T>(
    key: string,
    options: ReadOptions,
    load: () => Promise<Loaded<T>>,
  ): Promise<Served<T>> {
    let failure: { error: unknown } | undefined
    let loaded: Loaded<T> | undefined
    let fromReplica: { value: unknown } | undefined
    let stored = false
    let lock: (() => void) | undefined
    const cached = await this.bento
      .getOrSet<T | undefined>({
        key,
        forceFresh: options.fresh,
        // No soft timeout: a stale entry answers for a failure, never for a slow upstream.
        timeout: null,
        factory: async (ctx) => {
          try {
            if (!options.fresh) {
              const other = await this.waitForReplica(key, options)
              if (other.value !== undefined) {
                // Stored by the replica that loaded it, with the upstream's TTL: reading it put
                // it in this process's tier as it is, so nothing more is stored here.
                fromReplica = { value: other.value }
                return ctx.skip()
              }
              lock = other.release
            }
            loaded = await load()
          } catch (error) {
            failure = { error }
            // Rethrown, bentocache serves the stale entry if there is one; skipped, it does not.
            if (this.options.staleAllowed(error)) throw error
            return ctx.skip()
          }
          const ttl = ttlOf(loaded.cacheControl)
          if (ttl === 0) return ctx.skip()
          deepFreeze(loaded.value)
          if (ttl !== undefined) ctx.setOptions({ ttl: ttl * 1000 })
          stored = true
          return loaded.value
        },
      })
      .catch((error: unknown) => {
        throw failure ? failure.error : error
      })
      // Released once the answer is stored, so a waiting replica finds it when the lock goes.
      .finally(() => lock?.())
    if (options.fresh && !stored && this.isDefinitive(failure, loaded)) {
      // A refresh learned that the entry must go (a 404, or an answer that may not be kept).
      await this.bento.delete({ key })
      await this.announceRefresh(key)
    }
    if (failure) {
      if (cached === undefined) throw failure.error
      return { value: cached, result: 'stale' }
    }
    if (fromReplica) return { value: fromReplica.value as T, result: 'shared' }
    if (options.fresh && stored) await this.announceRefresh(key)
    if (loaded) return { value: loaded.value, result: 'miss' }
    return { value: cached as T, result: 'hit' }
  }

  /**
   * Whether a read not stored says what the upstream holds now: an answer it may not keep, or a
   * failure that is the upstream's word (404, 401, 403, a bad body), not an outage a stale entry
   * may stand in for, nor the caller's own end or budget.
   */
  private isDefinitive(failure: { error: unknown } | undefined, loaded: unknown): boolean {
    if (!failure) return loaded !== undefined
    const { error } = failure
    return !this.options.staleAllowed(error) && !this.options.callersOwn(error)
  }

  /**
   * Across replicas: takes the load's lock in Redis, or, when another replica holds it, waits
   * for that replica's answer to appear in the cache. Gives up waiting (and loads) when the lock
   * goes without an answer (its holder renews it while it loads, so a holder that crashed or
   * lost Redis lets go within a second), or at the caller's deadline; without Redis, or with
   * Redis failing, it loads at once.
   */
  private async waitForReplica(
    key: string,
    options: ReadOptions,
  ): Promise<{ value?: unknown; release?: () => void }> {
    const { redis } = this.options
    if (!redis) return {}
    const owner = `${this.instance}:${randomUUID()}`
    const take = async () => {
      const taken = await redis.hold(lockKey(key), owner)
      return taken === 'held' ? undefined : taken === 'unavailable' ? {} : { release: taken }
    }
    const mine = await take()
    if (mine) return mine
    while (Date.now() + POLL_MS < options.deadline) {
      await sleep(POLL_MS, undefined, { signal: options.signal })
      // The lock before the answer: its holder stores the answer before it lets go, so once the
      // lock is seen gone, an answer not found after it was never stored.
      const held = await redis.held(lockKey(key))
      const value = await this.bento.get({ key, grace: false })
      if (value !== undefined) return { value }
      // The other replica gave up or failed: take over its load.
      if (!held) return (await take()) ?? {}
    }
    return {}
  }

  /**
   * Tells the other replicas that `key` was just read fresh (stored anew, or removed): each drops
   * its in-process copy, so its next read takes what Redis holds. Told before the refreshing
   * caller is answered; Redis failing, the others keep their copy until it expires.
   */
  private async announceRefresh(key: string) {
    const { redis } = this.options
    if (!redis) return
    await redis
      .guard(() => redis.client.publish(REFRESHED_CHANNEL, `${this.instance} ${key}`))
      .catch(() => {})
  }

  private refreshedElsewhere(message: string) {
    const cut = message.indexOf(' ')
    if (message.slice(0, cut) === this.instance) return
    this.inProcess.delete(`${PREFIX}:${message.slice(cut + 1)}`)
  }

  async close(): Promise<void> {
    await this.bento.disconnectAll()
  }
}

const lockKey = (key: string) => `gw:loading:${key}`

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

/** The promise, or an AbortError as soon as the signal aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Freezes an answer and everything in it: one object is served to every operation that reads it. */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return
  Object.freeze(value)
  for (const inner of Object.values(value)) deepFreeze(inner)
}
