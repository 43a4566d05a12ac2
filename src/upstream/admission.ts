import { cancelled, UpstreamError } from './errors.js'
import type { RateLimiter } from './rate-limit.js'
import type { Read } from './read-scope.js'

/** Stage 4: a connection in the caller's turn (round robin between callers' lanes: undici queues
 *  FIFO), then the rate turn; a later turn is reserved, the connection freed, the lane waits. */

type Release = () => void
export type Admission = { share: FairShare; limiter: RateLimiter; timeoutMs: number; twins?: Twins }
/** A request waiting in its caller's lane; `release` frees its connection (once). */
export type Ticket = { readonly lane: string; granted(release: Release): void }

export class FairShare {
  private busy = 0
  /** Waiting tickets per lane; Map order is the round (a served lane goes to the back). */
  private readonly lanes = new Map<string, Ticket[]>()
  /** Lanes that wait for their turn, until when (epoch ms; infinite: until told). */
  private readonly waitUntil = new Map<string, number>()
  private wake: NodeJS.Timeout | undefined
  private serving = false

  constructor(private readonly capacity: number) {}

  enqueue(ticket: Ticket, front = false): void {
    const lane = this.lanes.get(ticket.lane)
    if (!lane) this.lanes.set(ticket.lane, [ticket])
    else if (front) lane.unshift(ticket)
    else lane.push(ticket)
    this.serve()
  }

  /** Skips `lane` until `until` (epoch ms); 0 serves it again. */
  wait(lane: string, until: number): void {
    if (until > 0) this.waitUntil.set(lane, until)
    else this.waitUntil.delete(lane)
    this.serve()
  }

  defer(ticket: Ticket, until: number): void {
    this.waitUntil.set(ticket.lane, until)
    this.enqueue(ticket, true)
  }

  withdraw(ticket: Ticket): boolean {
    const lane = this.lanes.get(ticket.lane) ?? []
    const at = lane.indexOf(ticket)
    if (at >= 0) lane.splice(at, 1)
    if (lane.length === 0) this.lanes.delete(ticket.lane)
    return at >= 0
  }

  private serve() {
    if (this.serving) return // a grant that releases or defers at once: this loop picks it up
    this.serving = true
    try {
      for (let ticket = this.next(); ticket; ticket = this.next()) {
        let released = false
        this.busy++
        ticket.granted(() => {
          if (released) return
          released = true
          this.busy--
          this.serve()
        })
      }
    } finally {
      this.serving = false
    }
  }

  /** The head of the lane whose wait ended first, else of the first lane that does not wait. */
  private next(): Ticket | undefined {
    if (this.busy >= this.capacity) return undefined
    const now = Date.now()
    let [chosen, ended, wakeAt] = [undefined as string | undefined, now, Infinity]
    for (const name of this.lanes.keys()) {
      const until = this.waitUntil.get(name)
      if (until === undefined) chosen ??= name
      else if (until <= ended) [chosen, ended] = [name, until]
      else wakeAt = Math.min(wakeAt, until)
    }
    // Timers run on the event loop's clock, which may lag Date.now: serve again until it is due.
    clearTimeout(this.wake)
    if (wakeAt < Infinity) this.wake = setTimeout(() => this.serve(), wakeAt - now).unref()
    const lane = this.lanes.get(chosen ?? '')
    if (chosen === undefined || !lane) return undefined
    this.waitUntil.delete(chosen)
    this.lanes.delete(chosen)
    if (lane.length > 1) this.lanes.set(chosen, lane)
    return lane.shift()
  }
}

/** A read's attempts waiting here (by key, in any lane): one admitted withdraws the others, which
 *  join it; while one asks Redis for its turn the others wait to see it. No twin takes a turn. */
export class Twins {
  private readonly waiting = new Map<string, Set<() => void>>()
  private readonly asking = new Map<string, Promise<unknown>>()
  /** Keys just admitted, until that read goes on to be sent (a microtask) and can be joined. */
  readonly underWay = new Set<string>()

  /** `withdraw` is called when a twin of `key` is admitted; returns its undoing. */
  watch(key: string, withdraw: () => void): Release {
    const waiting = this.waiting.get(key) ?? new Set()
    this.waiting.set(key, waiting.add(withdraw))
    return () => {
      waiting.delete(withdraw)
      if (waiting.size === 0 && this.waiting.get(key) === waiting) this.waiting.delete(key)
    }
  }

  /** Withdraws `key`'s twins waiting here, and those asking until the admitted one goes on. */
  admitted(key: string): void {
    for (const withdraw of this.waiting.get(key) ?? []) withdraw()
    this.waiting.delete(key)
    this.underWay.add(key)
    queueMicrotask(() => this.underWay.delete(key))
  }

  /** The turn a twin of `key` asks for now; with `turn`: this one's, until it is known. */
  asked(key: string, turn?: Promise<unknown>): Promise<unknown> | undefined {
    if (!turn) return this.asking.get(key)
    this.asking.set(key, turn)
    void turn.finally(() => this.asking.delete(key))
  }
}

/** The connection's release once `read`'s request may be sent; undefined: a twin was admitted.
 *  Rejects when the operation ends or at a deadline; a turn is waited for UPSTREAM_TIMEOUT_MS. */
export function admit(read: Read, admission: Admission, key?: string) {
  const { share, limiter, timeoutMs } = admission
  const twins = key === undefined ? undefined : admission.twins
  const { scope, readDeadline, endpoint, tokenKey } = read
  const lane = scope.fairnessKey
  const horizon = Math.min(scope.deadline, readDeadline, Date.now() + timeoutMs)
  let [turnAt, done, timer, unwatch] = [0, false] as [number, boolean, NodeJS.Timeout?, Release?]
  return new Promise<Release | undefined>((resolve, reject) => {
    const finish = (outcome: Release | UpstreamError | undefined) => {
      done = true
      clearTimeout(timer)
      unwatch?.()
      scope.signal.removeEventListener('abort', onAbort)
      if (outcome instanceof UpstreamError) return reject(outcome)
      resolve(outcome)
      // After: admitted, it goes on first, to be sent; its twins join it then.
      if (outcome && key) twins?.admitted(key)
    }
    const withdraw = () => !done && share.withdraw(ticket)
    const onAbort = () => withdraw() && finish(cancelled(endpoint))
    const noTurn = (waitMs: number, callersOwn = scope.deadline <= horizon) => {
      const paused = limiter.pausedUntil(tokenKey)
      const why = paused
        ? `the upstream answered 429 and asked to wait ${Math.ceil((paused - Date.now()) / 1000)} s (Retry-After) before this token reads again`
        : `the rate limit (${limiter.settings.join(', ')}) has no turn free`
      const message = `not read: ${why}, and the wait would end after this read's deadline`
      const retryAfterSeconds = Math.ceil(waitMs / 1000)
      return new UpstreamError('RATE_LIMITED', endpoint, message, { retryAfterSeconds, callersOwn })
    }
    const turned = (waitMs: number, release: Release) => {
      if (waitMs > 0) release()
      if (waitMs > 0 && Date.now() + waitMs <= horizon) {
        turnAt = Date.now() + waitMs
        return share.defer(ticket, turnAt)
      }
      // Admitted (its twins withdrawn) before its lane is served again.
      finish(waitMs <= 0 ? release : noTurn(waitMs))
      share.wait(lane, 0)
    }
    const ticket: Ticket = {
      lane,
      granted(release) {
        if (turnAt) return finish(release)
        // A twin asks for its turn: back in the lane, which waits to see it (admitted: withdrawn).
        const twin = key && twins?.asked(key)
        if (twin) {
          release()
          share.defer(ticket, Infinity)
          return void twin.then(() => share.wait(lane, 0))
        }
        const turn = limiter.turn(tokenKey, lane, horizon - Date.now())
        if (typeof turn === 'number') return turned(turn, release)
        // Asked of Redis: the caller's next request waits for this one's turn to be known.
        share.wait(lane, Infinity)
        void turn.then((wait) => turned(wait, release))
        if (key) twins?.asked(key, turn)
      },
    }
    if (scope.signal.aborted) return finish(cancelled(endpoint))
    if (key && twins?.underWay.has(key)) return finish(undefined)
    share.enqueue(ticket)
    if (done) return
    scope.signal.addEventListener('abort', onAbort, { once: true })
    if (key) unwatch = twins?.watch(key, () => withdraw() && finish(undefined))
    const wait = Math.max(0, Math.min(scope.deadline, readDeadline) - Date.now())
    if (wait >= 2 ** 31 - 1) return // a farther deadline than setTimeout can wait is none
    const expire = () => {
      if (!withdraw()) return
      const own = scope.deadline <= readDeadline
      if (turnAt > Date.now()) return finish(noTurn(turnAt - Date.now(), own))
      const why = 'no upstream connection was free before the deadline (OPERATION_TIMEOUT_MS)'
      finish(new UpstreamError('UPSTREAM_TIMEOUT', endpoint, why, { callersOwn: own }))
    }
    timer = setTimeout(expire, wait)
  })
}
