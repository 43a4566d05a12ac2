import { CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen } from 'cockatiel'
import { LRUCache } from 'lru-cache'
import type { Logger } from 'pino'
import { cancelled, isCallersOwn, UpstreamError } from './errors.js'
import type { Read } from './read-scope.js'

/** Stage 2, when requests fail: retries within UPSTREAM_TIMEOUT_MS and the deadline, from one
 *  budget per process; a circuit per endpoint and token (cockatiel), this replica's. */

export type RetryPolicy = { maxRetries: number; baseDelayMs: number; maxDelayMs: number }
export type CircuitOptions = { failures: number; openMs: number }

/** Retried: no connection, 429/502/503/504; never another 4xx, a 500, a timeout or a bad body. */
const isRetried = ({ status, code }: UpstreamError) =>
  status === undefined ? code === 'UPSTREAM_ERROR' : [429, 502, 503, 504].includes(status)

export function retryDelayMs(policy: RetryPolicy, n: number, retryAfter = 0, random = Math.random) {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** n)
  return Math.max(backoff / 2 + (random() * backoff) / 2, retryAfter * 1000)
}

/** Retries add 20 % to the reads at most, plus 10 in reserve; a read only a `@defer`red part
 *  wants retries while 5 are left after it: first parts go first. */
export class RetryBudget {
  private tokens = 10

  deposit(): void {
    this.tokens = Math.min(10, this.tokens + 0.2)
  }

  withdraw(deferred = false): boolean {
    return this.tokens >= (deferred ? 6 : 1) && this.tokens-- > 0
  }
}

/** What a circuit counts: the upstream not there; not a 429 (it pauses the token), another
 *  read's failure, nor the operation's own end or deadline. */
const isOutage = (error: Error) =>
  error instanceof UpstreamError &&
  !error.details.joined &&
  !isCallersOwn(error) &&
  (error.code === 'UPSTREAM_TIMEOUT' || (error.code === 'UPSTREAM_ERROR' && error.retryable))

type Circuit = ReturnType<typeof circuitBreaker> & { openedAt?: number }

export class Resilience {
  readonly budget = new RetryBudget()
  private readonly circuits = new LRUCache<string, Circuit>({ max: 10_000 })

  constructor(
    private readonly policy: RetryPolicy = { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1000 },
    private readonly circuit?: CircuitOptions,
    /** No UPSTREAM_TOKEN: a 401/403 is the caller's own token refused (logged at info). */
    private readonly callersTokens = false,
    private readonly logger?: Logger,
  ) {}

  /** `attempt(n)`, n = 1, 2 …, until one answers or a failure is final. */
  async run<T>(read: Read, attempt: (n: number) => Promise<T>): Promise<T> {
    const circuit = this.circuitOf(read)
    if (!circuit) return this.retrying(read, attempt)
    // Half-open: its probe is under way, alone (cockatiel would have the others wait for it).
    if (circuit.state === CircuitState.HalfOpen) throw this.refused(read, 1000)
    try {
      return await circuit.execute(() => this.retrying(read, attempt, circuit))
    } catch (error) {
      const wait = this.openFor(circuit)
      // Not ours: cockatiel's BrokenCircuitError. Open now: trying sooner would be refused.
      if (!(error instanceof UpstreamError)) throw this.refused(read, wait)
      if (wait <= (error.retryAfterSeconds ?? 0) * 1000) throw error
      throw error.with({ retryAfterSeconds: Math.ceil(wait / 1000) })
    }
  }

  private async retrying<T>(read: Read, attempt: (n: number) => Promise<T>, circuit?: Circuit) {
    const { scope, endpoint } = read
    this.budget.deposit()
    let failure: UpstreamError | undefined
    for (let n = 1; ; n++) {
      try {
        return await attempt(n)
      } catch (error) {
        // A retry the operation's budget refuses leaves what the upstream said, as its own.
        const last = error as UpstreamError
        if (failure && last.code === 'QUERY_TOO_COSTLY') throw failure.with({ callersOwn: true })
        failure = last
      }
      if (isCallersOwn(failure)) throw failure
      const { code, status, details } = failure
      const delay = this.delayAfter(failure, n, read, circuit)
      if (delay === undefined) {
        // Failed for good, logged once: at info what the caller asked for, else warn (act on it).
        const info =
          code === 'NOT_FOUND' || (this.callersTokens && [401, 403].includes(status ?? 0))
        const line = { endpoint, code, status, attempts: n, requestId: scope.requestId }
        if (!details.joined) this.logger?.[info ? 'info' : 'warn'](line, 'upstream read failed')
        throw failure
      }
      // Past the operation's deadline: what happened, as the operation's own.
      if (Date.now() + delay >= scope.deadline) throw failure.with({ callersOwn: true })
      const line = { endpoint, code, status, retry: n, delayMs: Math.round(delay) }
      this.logger?.debug({ ...line, requestId: scope.requestId }, 'retrying upstream read')
      await new Promise((resolve, reject) => {
        const ended = () => {
          clearTimeout(timer)
          reject(cancelled(endpoint))
        }
        // The listener goes with the wait: an operation's signal outlives many retries.
        const timer = setTimeout(() => {
          scope.signal.removeEventListener('abort', ended)
          resolve(undefined)
        }, delay)
        if (scope.signal.aborted) ended()
        else scope.signal.addEventListener('abort', ended, { once: true })
      })
    }
  }

  /** The wait before retrying after attempt `n`; undefined: none. A joined request's failure is
   *  retried at once, in this read's own turn: the backoff was its maker's. */
  private delayAfter(failure: UpstreamError, n: number, read: Read, circuit?: Circuit) {
    if (n > this.policy.maxRetries || !isRetried(failure)) return undefined
    if (circuit && circuit.state !== CircuitState.Closed) return undefined
    const delay = failure.details.joined
      ? 0
      : retryDelayMs(this.policy, n - 1, failure.retryAfterSeconds)
    if (Date.now() + delay >= read.readDeadline) return undefined
    if (!this.budget.withdraw(read.scope.deferred)) return undefined
    read.scope.retrying?.()
    return delay
  }

  private circuitOf({ template, tokenKey, endpoint }: Read): Circuit | undefined {
    if (!this.circuit) return undefined
    const key = `${template} ${tokenKey}`
    const { failures, openMs: halfOpenAfter } = this.circuit
    const known = this.circuits.get(key)
    if (known) return known
    const breaker = new ConsecutiveBreaker(failures)
    const circuit: Circuit = circuitBreaker(handleWhen(isOutage), { halfOpenAfter, breaker })
    circuit.onBreak(() => {
      circuit.openedAt = Date.now()
      this.logger?.warn({ endpoint, openSeconds: halfOpenAfter / 1000 }, 'upstream circuit open')
    })
    this.circuits.set(key, circuit)
    return circuit
  }

  private openFor(circuit: Circuit): number {
    if (circuit.state !== CircuitState.Open || !this.circuit) return 0
    return Math.max(0, (circuit.openedAt ?? 0) + this.circuit.openMs - Date.now())
  }

  private refused(read: Read, ms: number) {
    const seconds = Math.max(1, Math.ceil(ms / 1000))
    const why = `not read: its circuit is open after repeated upstream failures; it is tried again in ${seconds} s`
    return new UpstreamError('UPSTREAM_ERROR', read.endpoint, why, { retryAfterSeconds: seconds })
  }

  /** Per endpoint template, how many of its circuits refuse requests now (/metrics). */
  openByEndpoint(): Map<string, number> {
    const open = new Map<string, number>()
    for (const [key, circuit] of this.circuits.entries()) {
      const template = key.slice(0, key.indexOf(' '))
      const refusing = this.openFor(circuit) > 0 || circuit.state === CircuitState.HalfOpen
      open.set(template, (open.get(template) ?? 0) + Number(refusing))
    }
    return open
  }
}
