import { type ErrorCode, isRetryable } from '../errors/codes.js'

/**
 * Every way an upstream read can fail, as one typed error with a code of the catalogue
 * (src/errors/codes.ts). graphql-js copies its `extensions` onto the GraphQL error it makes.
 */
export type UpstreamErrorCode = Extract<
  ErrorCode,
  | 'NOT_FOUND'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'RATE_LIMITED'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_ERROR'
  | 'UPSTREAM_BAD_RESPONSE'
  | 'QUERY_TOO_COSTLY'
>

export interface UpstreamErrorDetails {
  /** HTTP status the upstream answered with, when it answered at all. */
  status?: number
  /** Seconds the upstream asked us to wait (Retry-After), when it said so. */
  retryAfterSeconds?: number
  /** The operation ended before the read could: nobody waits for it, nothing to report. */
  cancelled?: boolean
  /** It failed for a reason of the operation that made the read (its deadline, its budget),
   *  not of the upstream: an operation that joined the read makes it again within its own. */
  callersOwn?: boolean
  cause?: unknown
}

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError'
  readonly status: number | undefined
  readonly retryAfterSeconds: number | undefined
  readonly cancelled: boolean
  readonly callersOwn: boolean

  constructor(
    readonly code: UpstreamErrorCode,
    /** The endpoint template, e.g. `GET /v1/lists/{id}`: never the base URL, never a token. */
    readonly endpoint: string,
    message: string,
    details: UpstreamErrorDetails = {},
  ) {
    super(`${endpoint}: ${message}`, { cause: details.cause })
    this.status = details.status
    this.retryAfterSeconds = details.retryAfterSeconds
    this.cancelled = details.cancelled ?? false
    this.callersOwn = details.callersOwn ?? false
  }

  /**
   * Whether the same read may succeed later: a timeout, 429, 5xx or no answer at all; not an
   * upstream 4xx, which UPSTREAM_ERROR also reports.
   */
  get retryable(): boolean {
    if (this.code === 'UPSTREAM_ERROR') return this.status === undefined || this.status >= 500
    return isRetryable(this.code)
  }

  /** What a client may see besides the message (graphql-js copies it onto the GraphQL error). */
  get extensions() {
    return {
      code: this.code,
      retryable: this.retryable,
      ...(this.retryAfterSeconds === undefined
        ? {}
        : { retryAfterSeconds: this.retryAfterSeconds }),
    }
  }
}

/** A read dropped because its operation ended (response complete, client gone). */
export function cancelled(endpoint: string): UpstreamError {
  return new UpstreamError('UPSTREAM_ERROR', endpoint, 'not read: the operation ended', {
    cancelled: true,
  })
}

/**
 * Whether an expired cache entry may answer instead (stale-if-error): for the upstream's 5xx,
 * 429, a connection failure or a timeout; never for 401/403, 404, a bad body, nor for the
 * operation's own budget or end.
 */
export function staleMayAnswer(error: unknown): boolean {
  return error instanceof UpstreamError && !error.cancelled && error.retryable
}

/** A failure that belongs to the operation that made the read (its end, its budget, its
 *  deadline), not to the upstream: another operation sharing the read makes its own instead of
 *  taking it over. */
export function isCallersOwn(error: unknown): boolean {
  return (
    error instanceof UpstreamError &&
    (error.cancelled || error.callersOwn || error.code === 'QUERY_TOO_COSTLY')
  )
}

/** The same failure, marked as the reading operation's own (see isCallersOwn). */
export function asCallersOwn(error: UpstreamError): UpstreamError {
  return error.callersOwn ? error : changed(error, { callersOwn: true })
}

/** The same failure, telling the client to wait at least `seconds` before trying again. */
export function waitingAtLeast(error: UpstreamError, seconds: number): UpstreamError {
  return (error.retryAfterSeconds ?? 0) >= seconds
    ? error
    : changed(error, { retryAfterSeconds: seconds })
}

function changed(error: UpstreamError, details: UpstreamErrorDetails): UpstreamError {
  return new UpstreamError(
    error.code,
    error.endpoint,
    error.message.slice(error.endpoint.length + 2),
    {
      status: error.status,
      retryAfterSeconds: error.retryAfterSeconds,
      cancelled: error.cancelled,
      callersOwn: error.callersOwn,
      cause: error.cause,
      ...details,
    },
  )
}
