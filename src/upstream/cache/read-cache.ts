import { randomUUID } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Claim, Elsewhere } from '../gate.js'
import type { CacheResult } from '../read-scope.js'
import { decode, type Entry, encode, entryOf, lockEndsIn, lockOf, ttlOf } from './entry.js'
import type { RedisLink } from './redis.js'
import { RemoteReads } from './remote-reads.js'
import { SharedReads } from './shared-reads.js'

/**
 * The cache of upstream reads across operations (and, with Redis, across replicas). It knows
 * nothing of GraphQL nor of HTTP: it is handed a key (which the client makes from the token's
 * keyed hash, the language and the canonical path and query) and the function that makes the
 * read, whose first request it claims (src/upstream/gate.ts).
 *
 * Two tiers: in process, an LRU bounded by the bytes of its entries' JSON, holding the parsed
 * (frozen) answers; with Redis, Redis behind it while they are fresh (src/upstream/cache/
 * entry.ts, shared-reads.ts, and the lookup and lock of src/upstream/begin.ts). An expired entry
 * is kept in process its stale window and answers for a failure `staleAllowed` accepts
 * (stale-if-error).
 *
 * A read is shared while it is sent, never before: until then each operation's read waits in its
 * own caller's lane. The first to be sent (it holds a connection and its turn) is joined by the
 * others, here at once, on other replicas through its lock in Redis (they take its answer from
 * the message that tells it). A request that failed and waits to be sent again is nobody's to
 * join: its joiners go back to their own lanes. A joined read that fails for a reason of its
 * maker's (its end, its budget, its deadline: `callersOwn`) is made again by each operation that
 * joined it.
 */

export interface Served<T> {
  value: T
  result: CacheResult
}

/** A loader's answer and the upstream's `Cache-Control`, which overrides the default TTL. */
export interface Loaded<T> {
  value: T
  cacheControl?: string | undefined
}

/** What making a read gives: the upstream's answer, or how its first request ended unsent. */
export type Made<T> = Loaded<T> | Elsewhere

export interface ReadOptions {
  /** The caller sent `Cache-Control: no-cache`: nothing cached is served, the answer is stored. */
  fresh: boolean
  /** When the caller's operation started: a fresh read joins only reads sent after it. */
  startedAt: number
  /** The caller's end: waiting for someone else's read stops with it. */
  signal: AbortSignal
  /** The caller's deadline (epoch ms): waiting for another replica's read stops by then. */
  deadline: number
}

export interface ReadCacheOptions {
  ttlSeconds: number
  staleSeconds: number
  maxBytes: number
  /** Set: the second tier and the locks of reads sent, shared by every replica on it. */
  redis?: RedisLink | undefined
  /** Failures a stale entry may answer for (upstream 5xx, 429, connection, timeout). */
  staleAllowed(error: unknown): boolean
  /** Failures that belong to the reading operation alone (src/upstream/errors.ts). */
  callersOwn(error: unknown): boolean
}

/** A read of this process that has been sent. */
interface Sending {
  done: Promise<Served<unknown>>
  at: number
  resolve(served: Served<unknown>): void
  reject(error: unknown): void
}

/** What a joiner is told when the request it joined failed and waits to be sent again. */
const UNSENT = Symbol('unsent')

/** `2`: entries kept while fresh only, locks that say how long they last; earlier versions kept
 *  stale entries in Redis, which must not be taken for fresh ones during a rolling deploy. */
const PREFIX = 'gw:reads:2:'

export class ReadCache {
  private readonly tier: LRUCache<string, Entry>
  private readonly shared: SharedReads | undefined
  private readonly sending = new Map<string, Sending>()
  /** Per key, the functions that take this process's waiting first requests out of their lanes. */
  private readonly queued = new Map<string, Set<() => boolean>>()
  /** Per key, the first request that has a connection and asks for its turn (one at a time). */
  private readonly asking = new Map<string, Promise<void>>()
  private readonly remote = new RemoteReads()

  constructor(
    private readonly options: ReadCacheOptions,
    /** Named in this process's locks and announcements (src/upstream/begin.ts takes the same). */
    private readonly instance: string,
  ) {
    this.tier = new LRUCache<string, Entry>({
      maxSize: options.maxBytes,
      sizeCalculation: (entry) => Math.max(1, entry.size),
    })
    if (options.redis) {
      this.shared = new SharedReads(options.redis, this.instance, {
        sent: (key, lock, instance) => {
          if (instance !== this.instance) this.sentElsewhere(key, lockEndsIn(lock))
        },
        landed: (key, stored, flags, instance) => this.landed(key, stored, flags, instance),
        released: (key) => this.remote.settle(unprefixed(key)),
        forgotten: (key) => {
          this.tier.delete(unprefixed(key))
          this.remote.settle(unprefixed(key))
        },
        lost: () => this.remote.settleAll(),
      })
    }
  }

  /**
   * The value for `key`: from the cache, from a read sent by another operation or replica, or
   * made by `make` (stored when the upstream allows). When the read fails with a failure
   * `staleAllowed` accepts and an expired entry is still kept, that entry answers (`stale`).
   * Waiting for another replica's read past the caller's deadline fails with `overdue()`.
   */
  async read<T>(
    key: string,
    options: ReadOptions,
    make: (claim: Claim) => Promise<Made<T>>,
    overdue: () => unknown,
  ): Promise<Served<T>> {
    /** Whether Redis is asked first: not after it held an expired or unreadable entry. */
    let lookUp = true
    for (;;) {
      const entry = options.fresh ? undefined : this.kept(key)
      if (entry && entry.freshUntil > Date.now()) return { value: entry.value as T, result: 'hit' }
      const sending = this.sending.get(key)
      if (sending && (!options.fresh || sending.at >= options.startedAt)) {
        const joined = await this.join(sending, options)
        if (joined) return joined as Served<T>
        continue
      }
      const asking = this.asking.get(key)
      if (asking) {
        await asking
        continue
      }
      if (!options.fresh && this.remote.waited(key)) {
        const landed = await this.remote.wait(key, options.signal, options.deadline)
        if (landed === 'deadline') return this.overdue(entry, overdue())
        if (landed) return { value: landed.value as T, result: 'shared' }
        continue
      }
      const made = await this.make(key, options, entry, make, lookUp)
      if (made === 'unusable') lookUp = false
      else if (made) return made
    }
  }

  /** The in-process entry for `key`, fresh or stale, if it is still kept. */
  private kept(key: string): Entry | undefined {
    const entry = this.tier.get(key)
    if (entry && entry.keptUntil <= Date.now()) {
      this.tier.delete(key)
      return undefined
    }
    return entry
  }

  /** Past the caller's deadline: the stale entry if one may answer a timeout, else `error`. */
  private overdue<T>(kept: Entry | undefined, error: unknown): Served<T> {
    const stale = this.options.staleAllowed(error) ? kept : undefined
    if (stale && stale.keptUntil > Date.now()) return { value: stale.value as T, result: 'stale' }
    throw error
  }

  /** Another operation's read: its answer, or undefined when it failed on its maker's account or
   *  waits to be sent again. */
  private async join(sending: Sending, options: ReadOptions) {
    try {
      const { value, result } = await abortable(sending.done, options.signal)
      // A stale answer stays stale for everyone who gets it.
      return { value, result: result === 'stale' ? 'stale' : 'shared' } satisfies Served<unknown>
    } catch (error) {
      if (options.signal.aborted) throw error
      if (error !== UNSENT && !this.options.callersOwn(error)) throw error
      return undefined
    }
  }

  /** Makes the read (or finds, once its turn comes, that it need not): undefined to look again. */
  private async make<T>(
    key: string,
    options: ReadOptions,
    kept: Entry | undefined,
    make: (claim: Claim) => Promise<Made<T>>,
    lookUp: boolean,
  ): Promise<Served<T> | 'unusable' | undefined> {
    const { shared } = this
    const redisKey = PREFIX + key
    const lock = lockOf(`${this.instance}:${randomUUID()}`)
    /** The read while its request is sent (joinable), its lock in Redis if it holds one. */
    let mine: Sending | undefined
    let locked = false
    let everSent = false
    let withdrawMe: (() => boolean) | undefined
    let asked: (() => void) | undefined
    const stopAsking = () => {
      asked?.()
      asked = undefined
    }
    const joinable = () => {
      const other = this.sending.get(key)
      return other !== undefined && (!options.fresh || other.at >= options.startedAt)
    }
    const unlock = () => {
      if (locked) void shared?.release(redisKey, lock)
      locked = false
    }
    /** Its request is no longer sent; its joiners are told `outcome`. */
    const settled = (outcome: { served: Served<unknown> } | { error: unknown }) => {
      const sent = mine
      mine = undefined
      if (!sent) return
      if (this.sending.get(key) === sent) this.sending.delete(key)
      if ('served' in outcome) sent.resolve(outcome.served)
      else sent.reject(outcome.error)
    }
    const claim: Claim = {
      readKey: shared && !options.fresh && lookUp ? redisKey : undefined,
      lock,
      waiting: (withdraw) => {
        stopAsking()
        const waiting = this.queued.get(key)
        if (withdrawMe) waiting?.delete(withdrawMe)
        withdrawMe = withdraw
        if (withdraw && waiting) waiting.add(withdraw)
        else if (withdraw) this.queued.set(key, new Set([withdraw]))
        else if (waiting?.size === 0) this.queued.delete(key)
      },
      granted: () => {
        claim.waiting(undefined)
        if (joinable() || this.asking.has(key)) return false
        const asking = new Promise<void>((resolve) => {
          asked = () => {
            if (this.asking.get(key) === asking) this.asking.delete(key)
            resolve()
          }
        })
        this.asking.set(key, asking)
        return true
      },
      sent: (isLocked) => {
        stopAsking()
        if (joinable()) {
          if (isLocked) void shared?.release(redisKey, lock)
          return false
        }
        mine = sending()
        this.sending.set(key, mine)
        locked = isLocked
        everSent = true
        this.withdrawQueued(key)
        return true
      },
      unsent: () => {
        settled({ error: UNSENT })
        unlock()
      },
    }
    let made: Made<T>
    try {
      made = await make(claim)
    } catch (error) {
      stopAsking()
      if (!everSent) throw error
      const stale = this.staleFor(error, options, kept)
      if (options.fresh && this.isDefinitive(error)) await this.forget(key, redisKey)
      else unlock()
      if (!stale) {
        settled({ error })
        throw error
      }
      const served = { value: stale.value as T, result: 'stale' as const }
      settled({ served })
      return served
    }
    stopAsking()
    if ('kind' in made) return this.elsewhere(key, made)
    const ttl = ttlOf(made.cacheControl) ?? this.options.ttlSeconds
    const json = JSON.stringify(made.value)
    const entry = entryOf(made.value, json, ttl, this.options.staleSeconds)
    if (ttl > 0) this.tier.set(key, entry)
    if (options.fresh && ttl === 0) await this.forget(key, redisKey)
    else if (shared && (ttl > 0 || locked)) {
      await shared.land({
        key: redisKey,
        stored: encode(entry, json),
        keepMs: ttl > 0 ? entry.freshUntil - Date.now() : 0,
        lock: locked ? lock : undefined,
        refresh: options.fresh,
      })
    }
    const served = { value: made.value, result: 'miss' as const }
    settled({ served })
    return served
  }

  /**
   * A refresh learned that the entry must go: an answer the upstream says not to keep, or a
   * failure that is its word (404, 401, 403, a bad body), not an outage a stale entry may stand
   * in for, nor the reading operation's own end or budget. Removed here, in Redis and from every
   * replica's copy, so that none answers the old value.
   */
  private async forget(key: string, redisKey: string) {
    this.tier.delete(key)
    await this.shared?.forget(redisKey)
  }

  private isDefinitive(error: unknown): boolean {
    return !this.options.staleAllowed(error) && !this.options.callersOwn(error)
  }

  /** The stale entry that answers for `error`, if one may. */
  private staleFor(error: unknown, options: ReadOptions, kept?: Entry) {
    if (options.fresh || !this.options.staleAllowed(error)) return undefined
    return kept && kept.keptUntil > Date.now() ? kept : undefined
  }

  /**
   * The first request found the read cached, made elsewhere, or was taken out of its lane;
   * `unusable`: Redis holds something this process cannot read, which the read then replaces
   * without looking it up again. An entry Redis still holds is fresh: it keeps entries while they
   * are, by its own clock (the times in an entry are its storer's, whose clock may differ).
   */
  private elsewhere<T>(key: string, made: Elsewhere): Served<T> | 'unusable' | undefined {
    if (made.kind === 'hit') {
      const entry = decode(made.stored)
      if (!entry) return 'unusable'
      this.tier.set(key, entry)
      return { value: entry.value as T, result: 'hit' }
    }
    if (made.kind === 'held') this.remote.expect(key, lockEndsIn(made.lock))
    return undefined
  }

  /** Reads of `key` waiting in their lanes here are taken out: it is sent, or answered. */
  private withdrawQueued(key: string) {
    const waiting = this.queued.get(key)
    this.queued.delete(key)
    for (const withdraw of waiting ?? []) withdraw()
  }

  /** Whether another replica listens for the reads this one sends. */
  othersListen(): boolean {
    return this.shared?.othersListen() ?? false
  }

  /** Another replica sent `redisKey`'s read: this process's reads of it waiting in their lanes
   *  wait for its answer instead. */
  private sentElsewhere(redisKey: string, endsInMs: number) {
    const key = unprefixed(redisKey)
    if (this.sending.has(key) || !this.queued.has(key)) return
    this.remote.expect(key, endsInMs)
    this.withdrawQueued(key)
  }

  /** Every replica hears every read landing: only those this process holds or waits for are
   *  parsed (a refresh replaces what it holds). */
  private landed(redisKey: string, stored: string, flags: string, instance: string) {
    const key = unprefixed(redisKey)
    const waited = this.remote.waited(key)
    if (!waited && !this.queued.has(key) && !this.tier.has(key)) return
    const entry = decode(stored)
    if (!entry) return
    if (flags !== 'n' && instance !== this.instance) this.tier.set(key, entry)
    this.remote.settle(key, entry)
    if (flags !== 'n') this.withdrawQueued(key)
  }
}

const unprefixed = (redisKey: string) => redisKey.slice(PREFIX.length)

/** A read about to be sent, for others to join. */
function sending(): Sending {
  let resolve!: (served: Served<unknown>) => void
  let reject!: (error: unknown) => void
  const done = new Promise<Served<unknown>>((res, rej) => {
    resolve = res
    reject = rej
  })
  // Nobody may be waiting for it: an unhandled rejection is not a failure of this read.
  done.catch(() => {})
  return { done, at: Date.now(), resolve, reject }
}

/** The promise, or the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
