/**
 * At most `capacity` upstream requests in flight. Requests waiting for a slot queue per key (one
 * key per caller) and free slots go round robin across keys, so one caller's backlog of hundreds
 * of reads delays another caller's read by at most one of its own. Waiting ends with the
 * caller's signal or deadline; a slot is then never taken.
 *
 * Hand-written: undici's pool queue is first come first served, and the npm packages that queue
 * per key (fair-task-pool, fair-queue) neither share one capacity across keys nor end a wait on
 * an AbortSignal or a deadline.
 */

export class WaitEnded extends Error {
  constructor(readonly reason: 'cancelled' | 'deadline') {
    super(reason === 'cancelled' ? 'the wait was cancelled' : 'the deadline passed while waiting')
  }
}

interface Waiter {
  grant(release: () => void): void
}

export class FairShare {
  private inFlight = 0
  /** Waiting requests per key; Map order is the round: a served key moves to the back. */
  private readonly queues = new Map<string, Waiter[]>()

  constructor(private readonly capacity: number) {}

  /** Resolves with the function that frees the slot, once one is free for this key. */
  acquire(key: string, signal: AbortSignal, deadline: number): Promise<() => void> {
    if (signal.aborted) return Promise.reject(new WaitEnded('cancelled'))
    if (this.inFlight < this.capacity && this.queues.size === 0) {
      return Promise.resolve(this.take())
    }
    if (Date.now() >= deadline) return Promise.reject(new WaitEnded('deadline'))
    return new Promise((resolve, reject) => {
      const end = (reason: WaitEnded['reason']) => {
        this.remove(key, waiter)
        stop()
        reject(new WaitEnded(reason))
      }
      const onAbort = () => end('cancelled')
      const wait = deadline - Date.now()
      // setTimeout cannot wait longer than 2^31 - 1 ms; a farther deadline is no deadline.
      const timer = wait < 2 ** 31 - 1 ? setTimeout(() => end('deadline'), wait) : undefined
      const stop = () => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
      }
      const waiter: Waiter = {
        grant: (release) => {
          stop()
          resolve(release)
        },
      }
      signal.addEventListener('abort', onAbort, { once: true })
      const queue = this.queues.get(key)
      if (queue) queue.push(waiter)
      else this.queues.set(key, [waiter])
    })
  }

  private take(): () => void {
    this.inFlight++
    let released = false
    return () => {
      if (released) return
      released = true
      this.inFlight--
      this.serveNext()
    }
  }

  private serveNext() {
    while (this.inFlight < this.capacity) {
      const next = this.queues.entries().next()
      if (next.done) return
      const [key, queue] = next.value
      const waiter = queue.shift()
      this.queues.delete(key)
      if (queue.length > 0) this.queues.set(key, queue)
      waiter?.grant(this.take())
    }
  }

  private remove(key: string, waiter: Waiter) {
    const queue = this.queues.get(key)
    if (!queue) return
    const at = queue.indexOf(waiter)
    if (at >= 0) queue.splice(at, 1)
    if (queue.length === 0) this.queues.delete(key)
  }
}
