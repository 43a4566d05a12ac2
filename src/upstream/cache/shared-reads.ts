import { ALIVE_PREFIX, READS_CHANNEL } from '../begin.js'
import type { RedisLink } from './redis.js'

/**
 * The Redis tier of the cache of reads, after a read is sent: what it stores there and tells
 * every replica on `gw:reads`, in one round trip per tick for all the reads answered in it
 * (`SET … PX` each, one `PUBLISH` carrying their answers), so that replicas waiting for them
 * take them from the message; a failed read's lock released (and the stale entry it replaced
 * put back). Before a read is sent, its lookup and lock are part of the one script of
 * src/upstream/begin.ts. Locks are not renewed one by one: an instance is alive while its
 * subscribed connection listens on `gw:alive:<instance>` (Redis drops it when the process dies),
 * and a replica waiting for reads checks, in one command, that their holders still are.
 * Messages (one line each part):
 * - `s <instance>`, keys: reads of these keys were sent (locked) by that replica;
 * - `l <instance>`, then per read its key, its flags (`r`: a refresh, `n`: an answer not
 *   stored, `-`) and the stored string (src/upstream/cache/entry.ts): reads answered;
 * - `r`, key: a read failed or was dropped, its lock is gone;
 * - `f`, key: a refresh found the entry must go; it is gone from Redis, and each replica drops
 *   its copy.
 */

export interface Announcements {
  sent(key: string, instance: string): void
  landed(key: string, stored: string, flags: string, instance: string): void
  released(key: string): void
  forgotten(key: string): void
}

interface Landing {
  key: string
  stored: string
  /** How long Redis keeps it; 0: not stored, only told (and the read's lock released). */
  keepMs: number
  /** The read's lock, if it took one. */
  lock: string | undefined
  refresh: boolean
}

// KEYS[1]: the entry. ARGV: the lock, the stale entry to put back ('' for none), its ms left,
// the channel ('' for no message). Only the lock's holder touches the key.
const RELEASE = `
local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, #ARGV[1]) == ARGV[1] then
  if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  else redis.call('DEL', KEYS[1]) end
end
if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[4], 'r\\n' .. KEYS[1]) end
return 1
`

interface Commands {
  gwRelease(key: string, lock: string, stale: string, staleMs: number, channel: string): unknown
}

export class SharedReads {
  private landings: Landing[] = []
  private flushed: Promise<void> | undefined
  private readonly commands: Commands

  constructor(
    private readonly redis: RedisLink,
    private readonly instance: string,
    listener: Announcements,
  ) {
    redis.client.defineCommand('gwRelease', { numberOfKeys: 1, lua: RELEASE })
    this.commands = redis.client as unknown as Commands
    redis.subscribe(READS_CHANNEL, (message) => heard(message, listener))
    redis.subscribe(ALIVE_PREFIX + instance, () => {})
  }

  /**
   * Which of `instances` (holders of locks this process waits on) are still alive; undefined
   * when Redis fails (the waiting reads then go without it).
   */
  async alive(instances: string[]): Promise<Set<string> | undefined> {
    try {
      const channels = instances.map((instance) => ALIVE_PREFIX + instance)
      const counts = (await this.redis.guard(() =>
        this.redis.client.pubsub('NUMSUB', ...channels),
      )) as (string | number)[]
      return new Set(instances.filter((_, i) => Number(counts[2 * i + 1]) > 0))
    } catch {
      return undefined
    }
  }

  /**
   * Stores `stored` under `key` for `keepMs` (0: not stored, only told to the replicas waiting
   * for it) and tells every replica, with the other reads answered in this tick. Never rejects:
   * Redis failing, the replicas waiting find its holder gone (no longer said alive) and read it
   * themselves.
   */
  land(landing: Landing): Promise<void> {
    this.landings.push(landing)
    this.flushed ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush())
    return this.flushed
  }

  /**
   * Releases the lock `lock` of `key` (a read that failed or was dropped), putting back the
   * stale entry it replaced while it has `staleMs` left, and tells the replicas waiting.
   */
  async release(key: string, lock: string, stale: string | undefined, staleMs: number) {
    const back = stale !== undefined && staleMs > 0 ? stale : ''
    // Past the breaker: a lock left behind would keep other replicas waiting until it expires.
    await Promise.resolve(
      this.commands.gwRelease(key, lock, back, Math.ceil(staleMs), READS_CHANNEL),
    ).catch(() => {})
  }

  /** Removes `key` (its entry, or a lock on it) and tells every replica to drop its copy. */
  async forget(key: string): Promise<void> {
    const pipeline = this.redis.client.pipeline().del(key).publish(READS_CHANNEL, `f\n${key}`)
    await this.redis.guard(() => pipeline.exec()).catch(() => {})
  }

  private async flush() {
    const landings = this.landings
    this.landings = []
    this.flushed = undefined
    const lines = [`l ${this.instance}`]
    const pipeline = this.redis.client.pipeline()
    for (const { key, stored, keepMs, lock, refresh } of landings) {
      // Stored, the entry takes the lock's place; not stored, the lock goes, with no message.
      if (keepMs > 0) pipeline.set(key, stored, 'PX', Math.ceil(keepMs))
      else if (lock !== undefined) (pipeline as unknown as Commands).gwRelease(key, lock, '', 0, '')
      lines.push(key, keepMs > 0 ? (refresh ? 'r' : '-') : 'n', stored)
    }
    pipeline.publish(READS_CHANNEL, lines.join('\n'))
    await this.redis.guard(() => pipeline.exec()).catch(() => {})
  }
}

function heard(message: string, listener: Announcements) {
  const lines = message.split('\n')
  const [head = ''] = lines
  if (head.startsWith('s ')) for (const key of lines.slice(1)) listener.sent(key, head.slice(2))
  else if (head === 'r') for (const key of lines.slice(1)) listener.released(key)
  else if (head === 'f') for (const key of lines.slice(1)) listener.forgotten(key)
  else if (head.startsWith('l ')) {
    const instance = head.slice(2)
    for (let i = 1; i + 2 < lines.length; i += 3) {
      listener.landed(lines[i] ?? '', lines[i + 2] ?? '', lines[i + 1] ?? '', instance)
    }
  }
}
