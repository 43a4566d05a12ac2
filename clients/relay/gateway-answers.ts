/**
 * What the gateway answers, in the shape a UI acts on. The same file is in clients/relay/ and
 * clients/apollo/ (a test keeps the two equal) so that each kit is one folder to copy.
 */

/** One error as a UI shows it and decides on it (docs/errors.md). */
export interface GatewayError {
  message: string
  /** `extensions.code`; `NETWORK_ERROR` when no GraphQL answer came back at all. */
  code: string
  /** The same request may succeed later (wait `retryAfterSeconds` first, when given). */
  retryable: boolean
  retryAfterSeconds?: number
  /** Where in `data` the null this error explains is. */
  path?: readonly (string | number)[]
  /** The answer's `X-Request-Id`: what the gateway's logs know the request by. */
  requestId?: string
}

/** An error as GraphQL-over-HTTP carries it (Relay keeps all but the message). */
export interface FormattedError {
  message?: string
  path?: readonly (string | number)[]
  extensions?: Record<string, unknown>
}

/** A GraphQL error in the UI's shape; the request id is the one the kit wrote in `extensions`. */
export function gatewayError(error: FormattedError, requestId?: string): GatewayError {
  const { code, retryable, retryAfterSeconds, requestId: own } = error.extensions ?? {}
  const id = requestId ?? (typeof own === 'string' ? own : undefined)
  return {
    message: error.message ?? (typeof code === 'string' ? code : 'Error'),
    code: typeof code === 'string' ? code : 'INTERNAL_SERVER_ERROR',
    retryable: retryable === true,
    ...(typeof retryAfterSeconds === 'number' && { retryAfterSeconds }),
    ...(error.path && { path: error.path }),
    ...(id !== undefined && { requestId: id }),
  }
}

/** The same errors with the answer's request id in `extensions`, where the client keeps it. */
export function withRequestId<E extends FormattedError>(errors: readonly E[], requestId?: string) {
  if (requestId === undefined) return errors
  return errors.map((error) => ({ ...error, extensions: { ...error.extensions, requestId } }))
}

/** A failure that came with no GraphQL answer (the network, a proxy's HTML page). */
export function networkError(message: string, status?: number, requestId?: string): GatewayError {
  return {
    message,
    code: 'NETWORK_ERROR',
    retryable: status === undefined || status === 429 || status >= 500,
    ...(requestId !== undefined && { requestId }),
  }
}

/** An answer without data: refused before it ran (HTTP 4xx, coded), or no GraphQL answer. */
export class GatewayRequestError extends Error {
  override name = 'GatewayRequestError'
  constructor(
    readonly errors: readonly GatewayError[],
    readonly status?: number,
  ) {
    super(errors.map((error) => `${error.code}: ${error.message}`).join('; '))
  }
}

/** The errors at `path` or under it: a field's own errors, those of a list item, of a page. */
export function errorsAt(errors: readonly GatewayError[], path: readonly (string | number)[]) {
  return errors.filter((error) => path.every((key, i) => error.path?.[i] === key))
}

/** What the gateway says of one answer besides its data. */
export interface ResponseInfo {
  requestId?: string
  /** Some value came from the cache past its TTL because the upstream failed. */
  stale: boolean
  staleReads: number
}

/** The request id and the stale flag (`extensions.cache`) of an answer, or of one of its parts. */
export function responseInfo(
  requestId: string | undefined,
  extensions: Record<string, unknown> | undefined,
  before?: ResponseInfo,
): ResponseInfo {
  const cache = (extensions?.cache ?? {}) as { stale?: unknown; staleReads?: unknown }
  return {
    ...(requestId !== undefined && { requestId }),
    stale: cache.stale === true || before?.stale === true,
    staleReads: Math.max(
      typeof cache.staleReads === 'number' ? cache.staleReads : 0,
      before?.staleReads ?? 0,
    ),
  }
}

/** The last answer's ResponseInfo per operation name, for React's useSyncExternalStore. */
export class ResponseLog {
  readonly #infos = new Map<string, ResponseInfo>()
  readonly #listeners = new Set<() => void>()

  get = (operationName: string) => this.#infos.get(operationName)

  set(operationName: string, info: ResponseInfo) {
    this.#infos.set(operationName, info)
    for (const listener of this.#listeners) listener()
  }

  subscribe = (listener: () => void) => {
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }
}
