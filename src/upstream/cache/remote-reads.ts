import type { Entry } from './entry.js'

/**
 * The reads this process waits for that another replica (or one of its own batches) sent, by
 * cache key: each is settled by the message that announces its answer, by the one that says its
 * lock is gone, or with `gone` when its holder is (its subscribed connection dropped, found so at
 * two checks in a row: a replica just started may not listen yet), so that a waiter takes its
 * lock over. With no news for QUIET_MS its waiters look again (a message may be missed while a
 * subscription reconnects). When Redis fails, every wait is settled: each then reads without it.
 */

/** An answer, `gone` (take the lock over), or undefined (look again). */
export type Outcome = Entry | 'gone' | undefined

interface Remote {
  owner: string
  done: Promise<Outcome>
  settle(outcome?: Entry | 'gone'): void
}

const QUIET_MS = 5000
/** How often the holders of the reads waited for are checked. */
const WATCH_MS = 400

export class RemoteReads {
  private readonly waits = new Map<string, Remote>()
  private watching: NodeJS.Timeout | undefined
  /** Holders found gone at the last check. */
  private missing = new Set<string>()

  constructor(
    /** Which of these instances are alive; undefined when Redis fails. */
    private readonly alive: (owners: string[]) => Promise<Set<string> | undefined>,
  ) {}

  /** The instance whose read of `key` is waited for, if one is. */
  ownerOf(key: string): string | undefined {
    return this.waits.get(key)?.owner
  }

  /** `key`'s read, sent by the instance `owner`, is to be waited for (if it is not already). */
  expect(key: string, owner: string): void {
    if (this.waits.has(key)) return
    let settle!: (outcome?: Entry | 'gone') => void
    const done = new Promise<Outcome>((resolve) => {
      settle = resolve
    })
    const timer = setTimeout(() => remote.settle(), QUIET_MS)
    timer.unref()
    const remote: Remote = {
      owner,
      done,
      settle: (outcome) => {
        clearTimeout(timer)
        if (this.waits.get(key) === remote) this.waits.delete(key)
        settle(outcome)
      },
    }
    this.waits.set(key, remote)
    this.watching ??= setInterval(() => this.watch(), WATCH_MS)
    this.watching.unref()
  }

  /** Settles the wait for `key`'s read, if there is one. */
  settle(key: string, outcome?: Entry | 'gone'): void {
    this.waits.get(key)?.settle(outcome)
  }

  /** The outcome of `key`'s read (waited for: see ownerOf), or `deadline` if that comes first;
   *  rejects with the signal's reason when it aborts. */
  async wait(key: string, signal: AbortSignal, deadline: number): Promise<Outcome | 'deadline'> {
    const remote = this.waits.get(key)
    if (signal.aborted) throw signal.reason
    let timer: NodeJS.Timeout | undefined
    let onAbort = () => {}
    try {
      return await Promise.race([
        remote?.done,
        new Promise<'deadline'>((resolve, reject) => {
          timer = setTimeout(resolve, Math.max(0, deadline - Date.now()), 'deadline')
          onAbort = () => reject(signal.reason)
          signal.addEventListener('abort', onAbort, { once: true })
        }),
      ])
    } finally {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
    }
  }

  private async watch() {
    const owners = [...new Set([...this.waits.values()].map((remote) => remote.owner))]
    if (owners.length === 0) {
      this.close()
      return
    }
    const alive = await this.alive(owners)
    const missing = new Set(owners.filter((owner) => alive && !alive.has(owner)))
    for (const remote of this.waits.values()) {
      if (!alive) remote.settle()
      else if (missing.has(remote.owner) && this.missing.has(remote.owner)) remote.settle('gone')
    }
    this.missing = missing
  }

  /** Stops checking the holders. */
  close(): void {
    clearInterval(this.watching)
    this.watching = undefined
  }
}
