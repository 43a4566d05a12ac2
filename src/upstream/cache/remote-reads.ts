import type { Entry } from './entry.js'

/**
 * The reads this process waits for that another replica (or one of its own batches) sent, by
 * cache key. Each is settled by the message that announces its answer or says its lock is gone,
 * or, with no news, when its lock ends: the longest its read may last, so a holder that died,
 * froze or lost Redis holds nobody past that. Nothing is polled meanwhile. When this process's
 * subscription to those messages drops, every wait is settled: each then looks again.
 */

/** An answer, or undefined: look again (the lock is gone or over, or news may have been missed). */
export type Outcome = Entry | undefined

interface Remote {
  done: Promise<Outcome>
  settle(outcome?: Entry): void
}

/** Past a lock's end, how long before looking again: Redis may let it go a little later. */
const CLOCK_SLACK_MS = 50

export class RemoteReads {
  private readonly waits = new Map<string, Remote>()

  /** Whether the read of `key` is waited for. */
  waited(key: string): boolean {
    return this.waits.has(key)
  }

  /** `key`'s read, whose lock ends in `endsInMs`, is to be waited for (if it is not already). */
  expect(key: string, endsInMs: number): void {
    if (this.waits.has(key)) return
    let settle!: (outcome?: Entry) => void
    const done = new Promise<Outcome>((resolve) => {
      settle = resolve
    })
    const timer = setTimeout(() => remote.settle(), endsInMs + CLOCK_SLACK_MS)
    timer.unref()
    const remote: Remote = {
      done,
      settle: (outcome) => {
        clearTimeout(timer)
        if (this.waits.get(key) === remote) this.waits.delete(key)
        settle(outcome)
      },
    }
    this.waits.set(key, remote)
  }

  /** Settles the wait for `key`'s read, if there is one. */
  settle(key: string, outcome?: Entry): void {
    this.waits.get(key)?.settle(outcome)
  }

  /** Settles every wait: the messages that would end them may be missed. */
  settleAll(): void {
    for (const remote of [...this.waits.values()]) remote.settle()
  }

  /** The outcome of `key`'s read (waited for: see waited), or `deadline` if that comes first;
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
          // setTimeout cannot wait longer than 2^31 - 1 ms; a farther deadline is no deadline.
          const ms = Math.max(0, deadline - Date.now())
          if (ms < 2 ** 31 - 1) timer = setTimeout(resolve, ms, 'deadline')
          onAbort = () => reject(signal.reason)
          signal.addEventListener('abort', onAbort, { once: true })
        }),
      ])
    } finally {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
    }
  }
}
