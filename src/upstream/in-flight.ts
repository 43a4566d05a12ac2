import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { ReadScope } from './read-scope.js'
import { type RedisLink, readKey } from './redis.js'

/** Stage 3, reads in flight, joined once sent: here, the attempt under way; across replicas, a lock
 *  on the read's Redis key (`SET NX PX`) replaced by its answer, looked at later and later. */

const POLL_MS = 10
const MAX_POLL_MS = 160
/** What `lock` says while another replica holds the lock. */
export const LOCKED = '\0'
// KEYS[1]: a read's key; ARGV[1]: this process's lock. Removes the lock if it is still this one's.
const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end`

export class InFlight {
  private readonly sending = new Map<string, { at: number; done: Promise<unknown> }>()
  private readonly waits = new Map<string, Set<Wait>>()
  private polling: NodeJS.Timeout | undefined
  private pollMs = POLL_MS
  private readonly lockValue = `\0${randomUUID()}`

  constructor(private readonly redis?: RedisLink) {
    redis?.client.defineCommand('gwUnlock', { numberOfKeys: 1, lua: UNLOCK })
    redis?.onDown.push(() => {
      for (const [key, waits] of this.waits) for (const wait of waits) this.end(key, wait)
    })
  }

  /** The attempt at `key` under way here, if it began at or after `since` (epoch ms). */
  join<T>(key: string, since = 0): Promise<T> | undefined {
    const sent = this.sending.get(key)
    return sent && sent.at >= since ? (sent.done as Promise<T>) : undefined
  }

  /** Runs `attempt` as the one at `key` that others of this process join while it is under way. */
  async send<T>(key: string, attempt: () => Promise<T>): Promise<T> {
    const sent = { at: Date.now(), done: attempt() }
    sent.done.catch(() => {})
    this.sending.set(key, sent)
    try {
      return await sent.done
    } finally {
      if (this.sending.get(key) === sent) this.sending.delete(key)
    }
  }

  /** Takes the lock of `key` for `ms`: null when taken, undefined with no Redis to take it in
   *  (this replica reads alone), LOCKED while another replica reads it, else its answer. */
  async lock(key: string, ms: number): Promise<string | null | undefined> {
    const { redis, lockValue } = this
    if (!redis?.available) return undefined
    const set = (c: Redis) =>
      c.call('SET', readKey(key), lockValue, 'PX', Math.ceil(ms), 'NX', 'GET')
    const held = await (redis.run(set) as Promise<string | null>).catch(() => {
      // Unanswered (Redis frozen): released right behind, so Redis, back, keeps no lock of it.
      this.unlock(key)
      return undefined
    })
    if (held === lockValue) return null
    return held?.startsWith('\0') ? LOCKED : held
  }

  /** Gives back the lock of `key` if it is still this process's: sent even while the switch is
   *  off, so it runs right behind what a frozen Redis holds. */
  unlock(key: string): void {
    const { redis } = this
    if (redis?.client.status !== 'ready') return
    ;(redis.client as unknown as Unlock).gwUnlock(readKey(key), this.lockValue).catch(() => {})
  }

  /** Until another replica's lock on `key` is gone: its answer, or undefined (none, Redis down,
   *  or the operation ended or reached its deadline first, seen at the next look). */
  wait(key: string, scope: ReadScope): Promise<string | undefined> {
    return new Promise((done) => {
      this.waits.set(key, (this.waits.get(key) ?? new Set()).add({ scope, done }))
      this.pollMs = POLL_MS
      this.polling ??= setTimeout(this.poll, POLL_MS)
    })
  }

  private readonly poll = async () => {
    const keys = [...this.waits.keys()]
    const stored = await Promise.all(keys.map((key) => this.redis?.get(readKey(key))))
    for (const [i, key] of keys.entries()) {
      const locked = stored[i]?.startsWith('\0')
      const answer = locked ? undefined : (stored[i] ?? undefined)
      for (const wait of this.waits.get(key) ?? [])
        if (!locked || over(wait)) this.end(key, wait, answer)
    }
    // Each look waits twice the last, to MAX_POLL_MS: a slow read costs few looks, a fast one none.
    this.pollMs = Math.min(this.pollMs * 2, MAX_POLL_MS)
    this.polling = this.waits.size > 0 ? setTimeout(this.poll, this.pollMs) : undefined
  }

  private end(key: string, wait: Wait, answer?: string) {
    const waits = this.waits.get(key)
    if (waits?.delete(wait) && waits.size === 0) this.waits.delete(key)
    wait.done(answer)
  }
}

type Wait = { scope: ReadScope; done(stored: string | undefined): void }
const over = ({ scope }: Wait) => scope.signal.aborted || scope.deadline <= Date.now()
type Unlock = { gwUnlock(key: string, lock: string): Promise<number> }
