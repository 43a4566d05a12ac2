import type { RedisLink } from './redis.js'

/**
 * The Redis tier of the cache of reads, after a read is sent: what it stores there and tells
 * every replica on `gw:reads`, in one round trip per tick for all the reads answered in it
 * (`SET … PX` each, one `PUBLISH` carrying their answers), so that replicas waiting for them
 * take them from the message; a failed read's lock released. Before a read is sent, its lookup
 * and lock are part of the one script of src/upstream/begin.ts.
 * Messages (one line each part):
 * - `s <instance>`, then per read its key and, after a space, its lock's `<until> <ms>`: reads
 *   of these keys were sent (locked) by that replica (src/upstream/begin.ts);
 * - `l <instance>`, then per read its key, its flags (`r`: a refresh, `n`: an answer not
 *   stored, `-`) and the stored string (src/upstream/cache/entry.ts): reads answered;
 * - `r`, key: a read failed or was dropped, its lock is gone;
 * - `f`, key: a refresh found the entry must go; it is gone from Redis, and each replica drops
 *   its copy.
 */

export interface Announcements {
  sent(key: string, lock: string, instance: string): void
  landed(key: string, stored: string, flags: string, instance: string): void
  released(key: string): void
  forgotten(key: string): void
  /** The subscription dropped: messages may have been missed. */
  lost(): void
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

/** The channel of announcements about reads. */
export const READS_CHANNEL = 'gw:reads'

// KEYS[1]: the entry. ARGV: the lock's owner, the channel ('' for no message). Only the lock's
// holder removes the key.
const RELEASE = `
local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, #ARGV[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
if ARGV[2] ~= '' then redis.call('PUBLISH', ARGV[2], 'r\\n' .. KEYS[1]) end
return 1
`

interface Commands {
  gwRelease(key: string, lock: string, channel: string): unknown
}

export class SharedReads {
  private landings: Landing[] = []
  private flushed: Promise<void> | undefined
  /** How many processes the last message reached (this one included); unknown at first. */
  private reached = Number.POSITIVE_INFINITY
  private readonly commands: Commands

  constructor(
    private readonly redis: RedisLink,
    private readonly instance: string,
    listener: Announcements,
  ) {
    redis.client.defineCommand('gwRelease', { numberOfKeys: 1, lua: RELEASE })
    this.commands = redis.client as unknown as Commands
    redis.subscribe(READS_CHANNEL, (message) => heard(message, listener))
    redis.onLost(() => listener.lost())
  }

  /**
   * Stores `stored` under `key` for `keepMs` (0: not stored, only told to the replicas waiting
   * for it) and tells every replica, with the other reads answered in this tick. Never rejects:
   * Redis failing, the replicas waiting look again when its lock ends.
   */
  land(landing: Landing): Promise<void> {
    this.landings.push(landing)
    this.flushed ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush())
    return this.flushed
  }

  /** Whether another replica listens: a process alone need not announce the reads it sends. */
  othersListen(): boolean {
    return this.reached !== 1
  }

  /** Releases the lock `lock` of `key` (a read that failed, was dropped or waits to be sent
   *  again) and tells the replicas waiting. */
  async release(key: string, lock: string) {
    // Past the breaker: a lock left behind would keep other replicas waiting until it ends.
    await Promise.resolve(this.commands.gwRelease(key, lock, READS_CHANNEL)).catch(() => {})
  }

  /** Removes `key` (its entry, or a lock on it) and tells every replica to drop its copy. */
  async forget(key: string): Promise<void> {
    const pipeline = this.redis.client.pipeline().del(key).publish(READS_CHANNEL, `f\n${key}`)
    await this.redis.exec(pipeline).catch(() => {})
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
      else if (lock !== undefined) (pipeline as unknown as Commands).gwRelease(key, lock, '')
      lines.push(key, keepMs > 0 ? (refresh ? 'r' : '-') : 'n', stored)
    }
    pipeline.publish(READS_CHANNEL, lines.join('\n'))
    const replies = await this.redis.exec(pipeline).catch(() => null)
    const reached = replies?.at(-1)?.[1]
    if (typeof reached === 'number') this.reached = reached
  }
}

function heard(message: string, listener: Announcements) {
  const lines = message.split('\n')
  const [head = ''] = lines
  if (head.startsWith('s ')) {
    for (const line of lines.slice(1)) {
      const space = line.indexOf(' ')
      listener.sent(line.slice(0, space), line.slice(space + 1), head.slice(2))
    }
  } else if (head === 'r') for (const key of lines.slice(1)) listener.released(key)
  else if (head === 'f') for (const key of lines.slice(1)) listener.forgotten(key)
  else if (head.startsWith('l ')) {
    const instance = head.slice(2)
    for (let i = 1; i + 2 < lines.length; i += 3) {
      listener.landed(lines[i] ?? '', lines[i + 2] ?? '', lines[i + 1] ?? '', instance)
    }
  }
}
