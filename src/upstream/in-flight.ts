import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { ReadScope } from './read-scope.js'
import type { RedisLink } from './redis.js'

/**
 * Stage 3, reads in flight, joined only once sent. In this process: the attempt at a read under
 * way. Across replicas: a lock on the read's Redis key (`SET NX PX`, as long as the read may
 * last), taken just before its request is sent and replaced by its answer. A replica that finds
 * it looks at the key every POLL_MS (all its waits in one MGET) until the answer is there or the
 * lock is gone. No answer crosses but in the key, and no clock: Redis ends a dead holder's lock.
 */

const POLL_MS = 10
// KEYS[1]: a read's key; ARGV[1]: this process's lock. Removes the lock if it is still this one's.
const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end`

export class InFlight {
  private readonly sending = new Map<string, { at: number; done: Promise<unknown> }>()
  private readonly watchers = new Map<string, Set<() => void>>()
  private readonly waits = new Map<string, Set<(stored: string | undefined) => void>>()
  private polling: NodeJS.Timeout | undefined
  private readonly lockValue = `\0${randomUUID()}`

  constructor(private readonly redis?: RedisLink) {
    redis?.client.defineCommand('gwUnlock', { numberOfKeys: 1, lua: UNLOCK })
    redis?.onDown(() => {
      for (const key of [...this.waits.keys()]) this.settle(key, undefined)
    })
  }

  /** The attempt at `key` under way here, if it began at or after `since` (epoch ms). */
  join<T>(key: string, since = 0): Promise<T> | undefined {
    const sent = this.sending.get(key)
    return sent && sent.at >= since ? (sent.done as Promise<T>) : undefined
  }

  /** Calls `listener` when an attempt at `key` begins here; returns its undoing. */
  watch(key: string, listener: () => void): () => void {
    const listeners = this.watchers.get(key) ?? new Set()
    this.watchers.set(key, listeners.add(listener))
    return () => {
      listeners.delete(listener)
      if (listeners.size === 0 && this.watchers.get(key) === listeners) this.watchers.delete(key)
    }
  }

  /** Runs `attempt` as the one at `key` that others of this process join while it is under way. */
  async send<T>(key: string, attempt: () => Promise<T>): Promise<T> {
    const sent = { at: Date.now(), done: attempt() }
    sent.done.catch(() => {})
    this.sending.set(key, sent)
    for (const listener of this.watchers.get(key) ?? []) listener()
    this.watchers.delete(key)
    try {
      return await sent.done
    } finally {
      if (this.sending.get(key) === sent) this.sending.delete(key)
    }
  }

  /** Takes the lock of `key` for `ms`: null when taken, undefined with no Redis to take it in
   *  (this replica reads alone), else what the key holds (an answer, or another's lock). */
  async lock(key: string, ms: number): Promise<string | null | undefined> {
    if (!this.redis?.available) return undefined
    const set = (c: Redis) => c.call('SET', key, this.lockValue, 'PX', Math.ceil(ms), 'NX', 'GET')
    return (this.redis.run(set) as Promise<string | null>).catch(() => undefined)
  }

  /** Gives back the lock of `key` if it is still this process's. */
  unlock(key: string): void {
    const unlock = (c: unknown) => (c as Unlock).gwUnlock(key, this.lockValue)
    this.redis?.run(unlock).catch(() => {})
  }

  static isLock(stored: string): boolean {
    return stored.startsWith('\0')
  }

  /** Until another replica's lock on `key` is gone: its answer, or undefined (none, Redis down,
   *  or the operation ended or reached its deadline first). */
  wait(key: string, scope: ReadScope): Promise<string | undefined> {
    return new Promise((resolve) => {
      const done = (stored: string | undefined) => {
        clearTimeout(timer)
        scope.signal.removeEventListener('abort', gone)
        const waiting = this.waits.get(key)
        if (waiting?.delete(done) && waiting.size === 0) this.waits.delete(key)
        resolve(stored)
      }
      const gone = () => done(undefined)
      const ms = scope.deadline - Date.now()
      const timer = ms < 2 ** 31 - 1 ? setTimeout(gone, Math.max(0, ms)) : undefined
      scope.signal.addEventListener('abort', gone, { once: true })
      this.waits.set(key, (this.waits.get(key) ?? new Set()).add(done))
      this.polling ??= setTimeout(this.poll, POLL_MS)
    })
  }

  private readonly poll = async () => {
    const keys = [...this.waits.keys()]
    const stored = await Promise.all(keys.map((key) => this.redis?.get(key)))
    for (const [i, key] of keys.entries()) {
      const value = stored[i]
      if (!value || !InFlight.isLock(value)) this.settle(key, value ?? undefined)
    }
    this.polling = this.waits.size > 0 ? setTimeout(this.poll, POLL_MS) : undefined
  }

  private settle(key: string, stored: string | undefined) {
    for (const done of [...(this.waits.get(key) ?? [])]) done(stored)
  }
}

interface Unlock {
  gwUnlock(key: string, lock: string): Promise<number>
}
