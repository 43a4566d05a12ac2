import { type ErrorCode, isRetryable } from '../errors/codes.js'

/** Every way an upstream read fails: one error with a code of the catalogue (src/errors/codes.ts),
 *  whose `extensions` graphql-js copies onto the GraphQL error. */
type Answered = 'NOT_FOUND' | 'UNAUTHENTICATED' | 'FORBIDDEN' | 'RATE_LIMITED'
type Failed = 'UPSTREAM_TIMEOUT' | 'UPSTREAM_ERROR' | 'UPSTREAM_BAD_RESPONSE' | 'QUERY_TOO_COSTLY'

export interface UpstreamErrorDetails {
  status?: number | undefined
  /** Seconds to wait before trying again (Retry-After, or the circuit's). */
  retryAfterSeconds?: number | undefined
  cancelled?: boolean
  /** A reason of the operation that made the read (its deadline, budget), not the upstream's. */
  callersOwn?: boolean
  /** Another operation's request failed so: this read sent nothing itself. */
  joined?: boolean
  cause?: unknown
}

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError'
  readonly status: number | undefined
  readonly retryAfterSeconds: number | undefined
  readonly cancelled: boolean
  readonly callersOwn: boolean

  constructor(
    readonly code: Extract<ErrorCode, Answered | Failed>,
    /** The endpoint, e.g. `GET /v1/lists/{id}`: never the base URL, never a token. */
    readonly endpoint: string,
    message: string,
    readonly details: UpstreamErrorDetails = {},
  ) {
    super(`${endpoint}: ${message}`, { cause: details.cause })
    this.status = details.status
    this.retryAfterSeconds = details.retryAfterSeconds
    this.cancelled = details.cancelled ?? false
    this.callersOwn = details.callersOwn ?? false
  }

  /** Whether the same read may succeed later: a timeout, 429, 5xx or no answer at all. */
  get retryable(): boolean {
    if (this.code === 'UPSTREAM_ERROR') return this.status === undefined || this.status >= 500
    return isRetryable(this.code)
  }

  get extensions() {
    const { code, retryable, retryAfterSeconds: after } = this
    return after === undefined ? { code, retryable } : { code, retryable, retryAfterSeconds: after }
  }

  with(details: UpstreamErrorDetails): UpstreamError {
    const message = this.message.slice(this.endpoint.length + 2)
    return new UpstreamError(this.code, this.endpoint, message, { ...this.details, ...details })
  }
}

const ENDED = 'not read: the operation ended'
export const cancelled = (endpoint: string) =>
  new UpstreamError('UPSTREAM_ERROR', endpoint, ENDED, { cancelled: true })

/** Whether an expired cache entry may answer instead: for a 5xx, 429, no connection or a timeout;
 *  never a 401/403, 404, bad body, nor the operation's end or budget. */
export const staleMayAnswer = (error: unknown) =>
  error instanceof UpstreamError && !error.cancelled && error.retryable

/** A failure of the operation that made the read (its end, budget, deadline): one that joined the
 *  read makes it again instead of taking the failure. */
export const isCallersOwn = (error: unknown) =>
  error instanceof UpstreamError &&
  (error.cancelled || error.callersOwn || error.code === 'QUERY_TOO_COSTLY')
