import { cancelled, UpstreamError } from './errors.js'
import { FairShare, WaitEnded } from './fair-share.js'
import { RateLimitWait, type UpstreamRateLimiter } from './rate-limit.js'
import type { ReadScope } from './read-scope.js'

/** The longest an upstream 429's Retry-After holds a whole token. */
const MAX_PAUSE_S = 300

/**
 * What each request waits for before it is sent: its token's turn under UPSTREAM_RATE_LIMIT,
 * then a connection in the fair share, both bounded by the operation's deadline and end. A wait
 * that the operation's end stops is a cancelled error; one that a deadline stops is the error
 * the caller is told.
 */
export class SendGate {
  /** Connections shared round robin between callers. */
  private readonly share: FairShare

  constructor(
    maxConnections: number,
    /** UPSTREAM_TIMEOUT_MS: the longest a read waits for its turn before its first send. */
    private readonly timeoutMs: number,
    private readonly limiter: UpstreamRateLimiter | undefined,
  ) {
    this.share = new FairShare(maxConnections)
  }

  /**
   * Waits for `tokenKey`'s turn, then for a connection; resolves with the function that frees
   * the connection. `readDeadline` (epoch ms) is when the read must be done, infinite until its
   * first request is sent.
   */
  async pass(
    tokenKey: string,
    scope: ReadScope,
    readDeadline: number,
    endpoint: string,
  ): Promise<() => void> {
    await this.turn(tokenKey, scope, readDeadline, endpoint)
    return this.connection(scope, readDeadline, endpoint)
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

  /** This token's turn under UPSTREAM_RATE_LIMIT; one that would come after the deadline fails. */
  private async turn(tokenKey: string, scope: ReadScope, readDeadline: number, endpoint: string) {
    if (!this.limiter) return
    try {
      // A read waits for its turn at most its remaining UPSTREAM_TIMEOUT_MS (all of it when
      // nothing was sent yet), and never past the operation's deadline.
      const waitUntil = Number.isFinite(readDeadline) ? readDeadline : Date.now() + this.timeoutMs
      await this.limiter.turn(tokenKey, Math.min(scope.deadline, waitUntil), scope.signal)
    } catch (error) {
      if (!(error instanceof RateLimitWait)) throw cancelled(endpoint)
      throw new UpstreamError(
        'RATE_LIMITED',
        endpoint,
        'not read: the upstream rate limit (UPSTREAM_RATE_LIMIT) has no turn free before the deadline',
        { retryAfterSeconds: Math.ceil(error.waitMs / 1000) },
      )
    }
  }

  /** A connection slot, waited for fairly; the wait ends with the operation or its deadline. */
  private async connection(scope: ReadScope, readDeadline: number, endpoint: string) {
    try {
      return await this.share.acquire(
        scope.fairnessKey,
        scope.signal,
        Math.min(scope.deadline, readDeadline),
      )
    } catch (error) {
      if (error instanceof WaitEnded && error.reason === 'deadline') {
        throw new UpstreamError(
          'UPSTREAM_TIMEOUT',
          endpoint,
          'no upstream connection was free before the deadline (OPERATION_TIMEOUT_MS)',
        )
      }
      throw cancelled(endpoint)
    }
  }
}
