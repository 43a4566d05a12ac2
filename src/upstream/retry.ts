import type { UpstreamError } from './errors.js'

/**
 * When and how long to wait before trying an idempotent GET again. undici's RetryAgent retries
 * too, but has no jitter, no budget shared across requests and no deadline for all attempts
 * together, which a paid upstream with unknown rate limits needs.
 */

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number
  /** Backoff before the first retry; doubles each time, up to maxDelayMs. */
  baseDelayMs: number
  maxDelayMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 2,
  baseDelayMs: 100,
  maxDelayMs: 1000,
}

const RETRIED_STATUSES = new Set([429, 502, 503, 504])

/** Connection failures (no status) and 429/502/503/504; never another 4xx, 500, a timeout or a bad body. */
export function isRetryable(error: UpstreamError): boolean {
  if (error.status !== undefined) return RETRIED_STATUSES.has(error.status)
  return error.code === 'UPSTREAM_ERROR'
}

/** Capped exponential backoff with equal jitter, or the upstream's Retry-After when longer. */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  error: UpstreamError,
  random = Math.random,
) {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry)
  const jittered = backoff / 2 + (random() * backoff) / 2
  return Math.max(jittered, (error.retryAfterSeconds ?? 0) * 1000)
}

/**
 * Retries may add at most `ratio` of the traffic (plus a small reserve for quiet periods): each
 * first attempt deposits `ratio` of a token, each retry spends one. A failing upstream thus sees
 * about (1 + ratio) × the calls, not (1 + maxRetries) ×.
 */
export class RetryBudget {
  private tokens: number

  constructor(
    private readonly ratio = 0.2,
    private readonly reserve = 10,
  ) {
    this.tokens = reserve
  }

  deposit(): void {
    this.tokens = Math.min(this.reserve, this.tokens + this.ratio)
  }

  withdraw(): boolean {
    if (this.tokens < 1) return false
    this.tokens -= 1
    return true
  }
}

/** The retry policy, with one budget shared by every read of a client: it protects the upstream. */
export class Retries {
  private readonly budget = new RetryBudget()

  constructor(private readonly policy: RetryPolicy) {}

  /** A read starts: its first attempt adds to what retries may draw. */
  started(): void {
    this.budget.deposit()
  }

  /**
   * How long to wait before retrying a read whose `attempts`-th attempt ended with `failure`;
   * undefined when it is not retried: not retryable, retries used up, a wait that would end past
   * `deadline` (it would only end in a timeout: report what happened instead), or no budget left.
   */
  delayAfter(failure: UpstreamError, attempts: number, deadline: number): number | undefined {
    const delay = retryDelayMs(this.policy, attempts - 1, failure)
    const retry =
      attempts <= this.policy.maxRetries &&
      isRetryable(failure) &&
      Date.now() + delay < deadline &&
      this.budget.withdraw()
    return retry ? delay : undefined
  }
}
