import type { Answer, Begins } from './begin.js'
import { cancelled, UpstreamError } from './errors.js'
import { FairShare, type Ticket } from './fair-share.js'
import type { UpstreamRateLimiter } from './rate-limit.js'
import type { ReadScope } from './read-scope.js'

/** The longest an upstream 429's Retry-After holds a whole token. */
const MAX_PAUSE_S = 300

/**
 * The first request of a read through the cache, as the cache (src/upstream/cache/read-cache.ts)
 * hands it to the gate: looked up and locked with its turn, taken out of its lane when someone
 * else makes the read first, and told when it is sent.
 */
export interface Claim {
  /** Redis key of the shared entry; undefined: neither looked up nor locked. */
  readKey: string | undefined
  /** The lock's owner (src/upstream/cache/entry.ts). */
  lock: string | undefined
  /** While it waits in its lane: the function that takes it out (true when it still waited);
   *  undefined once it no longer waits (out of time, ended). */
  waiting(withdraw: (() => boolean) | undefined): void
  /** It has a connection: true to ask for its turn, false when another read of it is being asked
   *  for or sent here already (it then joins that one, and the connection goes to another). */
  granted(): boolean
  /** Its turn has come, holding the shared entry's lock when `locked`: true to send it, false
   *  when another read of it is being sent here (it joins that one). */
  sent(locked: boolean): boolean
  /** Its request failed and will be sent again: until then nobody may join it. */
  unsent(): void
}

export interface PassRequest {
  scope: ReadScope
  tokenKey: string
  /** When the read must be done (epoch ms); infinite until its first request is sent. */
  readDeadline: number
  endpoint: string
  claim?: Claim | undefined
}

/** How a cached read's first request ended without being sent. */
export type Elsewhere =
  | { kind: 'hit'; stored: string }
  | { kind: 'held'; lock: string }
  | { kind: 'withdrawn' }

/** Sent: `release` frees the connection. */
export type Passed = { kind: 'go'; release: () => void } | Elsewhere

/**
 * What each request waits for before it is sent: a connection in its caller's turn (the fair
 * share), then its rate turn (UPSTREAM_RATE_LIMIT, CALLER_RATE_LIMIT, a 429's pause) and, for a
 * read through the cache, the shared entry's lookup and lock, asked of Redis in one round trip
 * (src/upstream/begin.ts). A request with no turn yet gives its connection back and its lane
 * waits for the turn. Waiting is bounded by the operation's deadline and end: the end is a
 * cancelled error, a deadline the error the caller is told.
 */
export class SendGate {
  /** Connections shared round robin between callers. */
  readonly share: FairShare

  constructor(
    maxConnections: number,
    /** UPSTREAM_TIMEOUT_MS: the longest a read waits for its turn before its first send. */
    readonly timeoutMs: number,
    readonly limiter: UpstreamRateLimiter | undefined,
    readonly begins: Begins | undefined,
  ) {
    this.share = new FairShare(maxConnections)
  }

  /** Resolves once the request may be sent, or with why it need not be. */
  pass(request: PassRequest): Promise<Passed> {
    return new Waiting(this, request).promise
  }

  /**
   * The upstream asked this token to slow down (429 with Retry-After): every read made with it
   * waits, not only the one that was told; at most MAX_PAUSE_S, so one bad header cannot stop a
   * token for a day.
   */
  async slowDown(tokenKey: string, failure: UpstreamError): Promise<void> {
    if (failure.code !== 'RATE_LIMITED' || failure.retryAfterSeconds === undefined) return
    const seconds = Math.min(failure.retryAfterSeconds, MAX_PAUSE_S)
    await this.limiter?.pause(tokenKey, Date.now() + seconds * 1000)
  }

  /**
   * The turn of a request whose connection is granted (`horizon`: the latest it may come):
   * decided here at once, or, when Redis is asked, once it answers.
   */
  answer(request: PassRequest, horizon: number): Answer | Promise<Answer> {
    const { tokenKey, scope, claim } = request
    const maxWaitMs = horizon - Date.now()
    const { limiter, begins } = this
    const paused = limiter?.pausedUntil(tokenKey)
    if (paused !== undefined) {
      const waitMs = Math.ceil(paused - Date.now())
      return { kind: waitMs > maxWaitMs ? 'tooLate' : 'later', waitMs }
    }
    const callerKey = scope.fairnessKey
    const shared = limiter?.redis !== undefined
    if (begins && (claim?.readKey !== undefined || shared)) {
      const turn = shared ? { tokenKey, callerKey, maxWaitMs } : undefined
      // A lock lasts as long as the read may: UPSTREAM_TIMEOUT_MS from its first send.
      const { readDeadline } = request
      const lockMs = Number.isFinite(readDeadline) ? readDeadline - Date.now() : this.timeoutMs
      return begins
        .ask({ readKey: claim?.readKey, lock: claim?.lock, lockMs, turn })
        .then((answer) => answer ?? this.locally(tokenKey, callerKey, maxWaitMs))
    }
    return this.locally(tokenKey, callerKey, maxWaitMs)
  }

  /** No Redis, or Redis failing: no lock, and the turn counted by this process. */
  private locally(tokenKey: string, callerKey: string, maxWaitMs: number): Answer {
    return this.limiter ? this.limiter.takeLocally(tokenKey, callerKey, maxWaitMs) : { kind: 'go' }
  }
}

/** One request waiting at the gate: a ticket of the fair share. */
class Waiting implements Ticket {
  readonly lane: string
  readonly promise: Promise<Passed>
  private settle!: (passed: Passed) => void
  private fail!: (error: UpstreamError) => void
  /** Connections are waited for until then, turns until `horizon`. */
  private readonly deadline: number
  private readonly horizon: number
  private timer: NodeJS.Timeout | undefined
  /** When the turn this request waits for comes, while its lane waits for it. */
  private turnAt = 0

  constructor(
    private readonly gate: SendGate,
    private readonly request: PassRequest,
  ) {
    const { scope, readDeadline } = request
    this.lane = scope.fairnessKey
    this.deadline = Math.min(scope.deadline, readDeadline)
    // A read waits for its turn at most its remaining UPSTREAM_TIMEOUT_MS (all of it when
    // nothing was sent yet), and never past the operation's deadline.
    const until = Number.isFinite(readDeadline) ? readDeadline : Date.now() + gate.timeoutMs
    this.horizon = Math.min(scope.deadline, until)
    this.promise = new Promise<Passed>((resolve, reject) => {
      this.settle = resolve
      this.fail = reject
    })
    if (scope.signal.aborted) {
      this.end(cancelled(request.endpoint))
      return
    }
    scope.signal.addEventListener('abort', this.onAbort, { once: true })
    this.queue(() => gate.share.enqueue(this))
  }

  granted(release: () => void): void {
    clearTimeout(this.timer)
    if (this.request.claim?.granted() === false) {
      release()
      this.resolve({ kind: 'withdrawn' })
      return
    }
    // Decided at once, a turn not due defers the lane before the fair share grants its next read.
    const answer = this.gate.answer(this.request, this.horizon)
    if ('then' in answer) answer.then((decided) => this.answered(decided, release))
    else this.answered(answer, release)
  }

  private answered(answer: Answer, release: () => void) {
    const { claim, endpoint, scope } = this.request
    if (answer.kind === 'go' && (!claim || claim.sent(answer.locked === true))) {
      // Sent even if the operation ended meanwhile: the request then ends at once, and the lock
      // it took is released like any other failed read's.
      this.resolve({ kind: 'go', release })
      return
    }
    release()
    if (scope.signal.aborted) {
      this.end(cancelled(endpoint))
      return
    }
    switch (answer.kind) {
      case 'later':
        this.turnAt = Date.now() + answer.waitMs
        this.queue(() => this.gate.share.defer(this, this.turnAt))
        return
      case 'tooLate':
        this.end(this.noTurn(answer.waitMs, scope.deadline <= this.horizon))
        return
      case 'go':
        this.resolve({ kind: 'withdrawn' })
        return
      default:
        this.resolve(answer)
    }
  }

  /** Waits in its lane (put there by `put`) until granted, withdrawn or out of time. */
  private queue(put: () => void) {
    const withdraw = () => {
      if (!this.gate.share.withdraw(this)) return false
      this.resolve({ kind: 'withdrawn' })
      return true
    }
    this.request.claim?.waiting(withdraw)
    const wait = this.deadline - Date.now()
    // setTimeout cannot wait longer than 2^31 - 1 ms; a farther deadline is no deadline.
    if (wait < 2 ** 31 - 1) this.timer = setTimeout(() => this.timedOut(), Math.max(0, wait))
    put()
  }

  private timedOut() {
    if (!this.gate.share.withdraw(this)) return
    this.request.claim?.waiting(undefined)
    const { scope, readDeadline, endpoint } = this.request
    const own = scope.deadline <= readDeadline
    if (this.turnAt > Date.now()) {
      this.end(this.noTurn(this.turnAt - Date.now(), own))
      return
    }
    this.end(
      new UpstreamError(
        'UPSTREAM_TIMEOUT',
        endpoint,
        'no upstream connection was free before the deadline (OPERATION_TIMEOUT_MS)',
        { callersOwn: own },
      ),
    )
  }

  /** No turn before the deadline: says whether the upstream's 429 or a setting holds it back. */
  private noTurn(waitMs: number, own: boolean) {
    const { limiter } = this.gate
    const paused = limiter?.pausedUntil(this.request.tokenKey)
    const why =
      paused !== undefined
        ? `the upstream answered 429 and asked to wait ${Math.ceil((paused - Date.now()) / 1000)} s (Retry-After) before this token reads again`
        : `the rate limit (${limiter?.settings.join(', ')}) has no turn free`
    return new UpstreamError(
      'RATE_LIMITED',
      this.request.endpoint,
      `not read: ${why}, and the wait would end after this read's deadline`,
      { retryAfterSeconds: Math.ceil(waitMs / 1000), callersOwn: own },
    )
  }

  private readonly onAbort = () => {
    if (!this.gate.share.withdraw(this)) return
    this.request.claim?.waiting(undefined)
    this.end(cancelled(this.request.endpoint))
  }

  private resolve(passed: Passed) {
    this.finish()
    this.settle(passed)
  }

  private end(error: UpstreamError) {
    this.finish()
    this.fail(error)
  }

  private finish() {
    clearTimeout(this.timer)
    this.request.scope.signal.removeEventListener('abort', this.onAbort)
  }
}
