import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'pino'
import { type Dispatcher, Pool, errors as undiciErrors } from 'undici'
import type { UpstreamMetrics, UpstreamStatus } from '../observability/metrics.js'
import { ATTR_GATEWAY_CACHE, recordCacheRead, traceUpstreamCall } from '../observability/tracing.js'
import type { Loaded, ReadCache } from './cache/read-cache.js'
import type { Endpoint, PreparedRequest } from './endpoint.js'
import {
  cancelled,
  isCallersOwn,
  meaningOfStatus,
  parseRetryAfter,
  UpstreamError,
} from './errors.js'
import { FairShare, WaitEnded } from './fair-share.js'
import { RateLimitWait, type UpstreamRateLimiter } from './rate-limit.js'
import type { Caller, ReadScope } from './read-scope.js'
import {
  DEFAULT_RETRY_POLICY,
  isRetryable,
  RetryBudget,
  type RetryPolicy,
  retryDelayMs,
} from './retry.js'

export interface UpstreamClientOptions {
  /** The REST service's base URL; `/v1/...` paths are appended to it. */
  baseUrl: string
  /** Service token (UPSTREAM_TOKEN); when absent the caller's token is forwarded. */
  serviceToken?: string | undefined
  /** Name of the header that selects the response language. */
  languageHeader: string
  /** Budget for one request: connecting, headers and the whole body. */
  timeoutMs: number
  /** Concurrent upstream requests; more wait in the pool's queue. */
  maxConnections: number
  /** Largest response body accepted; larger is a bad response, not an out-of-memory. */
  maxResponseBytes: number
  /** Replaces the connection pool, e.g. with undici's MockAgent in unit tests. */
  dispatcher?: Dispatcher
  /** Keyed hash of an upstream token: what cache keys and rate buckets hold, never the token. */
  tokenKey(token: string): string
  /** Reads reused across operations (CACHE_TTL_SECONDS > 0). */
  cache?: ReadCache | undefined
  /** UPSTREAM_RATE_LIMIT per token, and the upstream's own 429 Retry-After, for every caller. */
  rateLimiter?: UpstreamRateLimiter | undefined
  /** Counts every request sent and every cache read. */
  metrics?: UpstreamMetrics | undefined
  retry?: RetryPolicy
  logger?: Logger
}

/** The longest an upstream 429's Retry-After holds a whole token. */
const MAX_PAUSE_S = 300
/** The smallest read there is, which readiness checks make (one list of the overview). */
const READINESS_PATH = '/v1/lists'
/** How long one readiness check answers every probe (contract: at most 5 s). */
const READY_REUSE_MS = 5000

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
])

/**
 * The only module that talks HTTP to the REST service: one keep-alive connection pool per
 * process, a deadline on every request, and every failure turned into an UpstreamError.
 * Knows nothing of GraphQL.
 */
export class UpstreamClient {
  private readonly dispatcher: Dispatcher
  private readonly origin: string
  private readonly basePath: string
  private readonly retryPolicy: RetryPolicy
  /** Shared by all callers: it protects the upstream, not one request. */
  private readonly retryBudget = new RetryBudget()
  /** Connections shared round robin between callers. */
  private readonly share: FairShare
  /** The last readiness check and when it started. */
  private readiness: { at: number; answer: Promise<boolean> } | undefined
  /** UPSTREAM_TOKEN's keyed hash, made once. */
  private readonly serviceTokenKey: string | undefined
  /** A caller's token's keyed hash, made once per operation (its Caller), kept no longer. */
  private readonly callerTokenKeys = new WeakMap<Caller, string>()

  constructor(private readonly options: UpstreamClientOptions) {
    this.retryPolicy = options.retry ?? DEFAULT_RETRY_POLICY
    this.serviceTokenKey =
      options.serviceToken === undefined ? undefined : options.tokenKey(options.serviceToken)
    this.share = new FairShare(options.maxConnections)
    const base = new URL(options.baseUrl)
    this.origin = base.origin
    this.basePath = base.pathname.replace(/\/+$/, '')
    this.dispatcher =
      options.dispatcher ??
      new Pool(this.origin, {
        connections: options.maxConnections,
        connect: { timeout: options.timeoutMs },
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        maxResponseSize: options.maxResponseBytes,
      })
  }

  /**
   * The keyed hash of the token `caller`'s reads are sent with (UPSTREAM_TOKEN's, else the
   * caller's own): the scope of what they may share (cache entries, the rate bucket, what is
   * known of lists). Undefined when there is no token at all.
   */
  tokenScope(caller: Caller): string | undefined {
    if (this.serviceTokenKey !== undefined) return this.serviceTokenKey
    if (caller.token === undefined) return undefined
    let key = this.callerTokenKeys.get(caller)
    if (key === undefined) {
      key = this.options.tokenKey(caller.token)
      this.callerTokenKeys.set(caller, key)
    }
    return key
  }

  /**
   * One GET's body parsed by the endpoint's schema: from the cache of reads when there is one
   * (keyed by the token's keyed hash, the language and the canonical path and query, so nothing
   * read with one token is served to another), otherwise from the upstream.
   */
  async send<T>(request: PreparedRequest<T>, scope: ReadScope): Promise<T> {
    const { endpoint } = request
    const token = this.options.serviceToken ?? scope.caller.token
    const tokenKey = this.tokenScope(scope.caller)
    if (token === undefined || tokenKey === undefined) {
      throw new UpstreamError(
        'UNAUTHENTICATED',
        endpoint.name,
        'no bearer token: send an Authorization header or configure UPSTREAM_TOKEN',
      )
    }
    const { cache } = this.options
    if (!cache) return (await this.load(request, scope, token, tokenKey)).value
    const key = `${tokenKey}:${scope.caller.language ?? '-'}:${request.pathAndQuery}`
    try {
      const served = await cache.read(key, scope, () => this.load(request, scope, token, tokenKey))
      scope.served(served.result)
      this.options.metrics?.cacheRead(served.result)
      recordCacheRead(scope.trace, served.result)
      return served.value
    } catch (error) {
      // Waiting for another operation's read ended with this operation.
      if (!(error instanceof UpstreamError) && scope.signal.aborted) throw cancelled(endpoint.name)
      // A read that failed upstream was not served from the cache either: a miss, so that the
      // hit ratio operators watch counts it (a read the operation gave up is not counted).
      if (error instanceof UpstreamError && !isCallersOwn(error)) {
        this.options.metrics?.cacheRead('miss')
        recordCacheRead(scope.trace, 'miss')
      }
      throw error
    }
  }

  /**
   * Reads from the upstream. The read waits for its token's turn (UPSTREAM_RATE_LIMIT) and for a
   * connection in the fair share (both bounded by the operation's deadline and end), draws each
   * HTTP request from the operation's budget just before sending it, and retries what is worth
   * retrying within UPSTREAM_TIMEOUT_MS counted from its first send.
   */
  private async load<T>(
    request: PreparedRequest<T>,
    scope: ReadScope,
    token: string,
    tokenKey: string,
  ): Promise<Loaded<T>> {
    const { endpoint } = request
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${token}`,
    }
    const { language } = scope.caller
    if (language !== undefined) headers[this.options.languageHeader] = language
    if (scope.requestId !== undefined) headers['x-request-id'] = scope.requestId

    this.retryBudget.deposit()
    /** When the read must be done; set when its first request is sent. */
    let readDeadline = Number.POSITIVE_INFINITY
    let attempts = 0
    let failure: UpstreamError | undefined
    for (;;) {
      await this.turn(tokenKey, scope, readDeadline, endpoint.name)
      const release = await this.slot(scope, readDeadline, endpoint.name)
      if (!scope.spend()) {
        release()
        // A retry the budget refuses leaves the read failed with what the upstream said.
        if (failure) throw this.failed(failure, attempts, scope)
        throw new UpstreamError(
          'QUERY_TOO_COSTLY',
          endpoint.name,
          'not read: the operation has spent its budget of upstream calls (MAX_OPERATION_COST)',
        )
      }
      try {
        if (attempts === 0) readDeadline = Date.now() + this.options.timeoutMs
        attempts++
        return await this.attempt(request, headers, scope, readDeadline, attempts)
      } catch (error) {
        failure = error as UpstreamError
      } finally {
        release()
      }
      if (failure.cancelled) throw failure
      if (failure.code === 'RATE_LIMITED' && failure.retryAfterSeconds !== undefined) {
        // The upstream asked this token to slow down: every read made with it waits, not only
        // this one; at most MAX_PAUSE_S, so one bad header cannot stop a token for a day.
        const seconds = Math.min(failure.retryAfterSeconds, MAX_PAUSE_S)
        await this.options.rateLimiter?.pause(tokenKey, Date.now() + seconds * 1000)
      }
      const delay = retryDelayMs(this.retryPolicy, attempts - 1, failure)
      const retry =
        attempts <= this.retryPolicy.maxRetries &&
        isRetryable(failure) &&
        // A wait past a deadline would only end in a timeout: report what happened instead.
        Date.now() + delay < Math.min(readDeadline, scope.deadline) &&
        this.retryBudget.withdraw()
      if (!retry) throw this.failed(failure, attempts, scope)
      this.options.logger?.debug(
        {
          endpoint: endpoint.name,
          code: failure.code,
          status: failure.status,
          retry: attempts,
          delayMs: Math.round(delay),
          requestId: scope.requestId,
        },
        'retrying upstream read',
      )
      try {
        await sleep(delay, undefined, { signal: scope.signal })
      } catch {
        throw cancelled(endpoint.name)
      }
    }
  }

  /** This token's turn under UPSTREAM_RATE_LIMIT; one that would come after the deadline fails. */
  private async turn(tokenKey: string, scope: ReadScope, readDeadline: number, endpoint: string) {
    const limiter = this.options.rateLimiter
    if (!limiter) return
    try {
      // A read waits for its turn at most its remaining UPSTREAM_TIMEOUT_MS (all of it when
      // nothing was sent yet), and never past the operation's deadline.
      const waitUntil = Number.isFinite(readDeadline)
        ? readDeadline
        : Date.now() + this.options.timeoutMs
      await limiter.turn(tokenKey, Math.min(scope.deadline, waitUntil), scope.signal)
    } catch (error) {
      if (!(error instanceof RateLimitWait)) throw cancelled(endpoint)
      throw this.failed(
        new UpstreamError(
          'RATE_LIMITED',
          endpoint,
          'not read: the upstream rate limit (UPSTREAM_RATE_LIMIT) has no turn free before the deadline',
          { retryAfterSeconds: Math.ceil(error.waitMs / 1000) },
        ),
        0,
        scope,
      )
    }
  }

  /** A connection slot, waited for fairly; the wait ends with the operation or its deadline. */
  private async slot(scope: ReadScope, readDeadline: number, endpoint: string) {
    try {
      return await this.share.acquire(
        scope.fairnessKey,
        scope.signal,
        Math.min(scope.deadline, readDeadline),
      )
    } catch (error) {
      if (error instanceof WaitEnded && error.reason === 'deadline') {
        throw this.failed(
          new UpstreamError(
            'UPSTREAM_TIMEOUT',
            endpoint,
            'no upstream connection was free before the deadline (OPERATION_TIMEOUT_MS)',
          ),
          0,
          scope,
        )
      }
      throw cancelled(endpoint)
    }
  }

  /**
   * The one log line of a read that failed for good: warn when the operator may have to act,
   * info for what the caller asked for (a 404; a 401/403 to the caller's own token).
   */
  private failed(failure: UpstreamError, attempts: number, scope: ReadScope): UpstreamError {
    const fields = {
      endpoint: failure.endpoint,
      code: failure.code,
      status: failure.status,
      attempts,
      requestId: scope.requestId,
    }
    const callersToken =
      this.options.serviceToken === undefined && (failure.status === 401 || failure.status === 403)
    if (failure.code === 'NOT_FOUND' || callersToken) {
      this.options.logger?.info(fields, 'upstream read failed')
    } else this.options.logger?.warn(fields, 'upstream read failed')
    return failure
  }

  /** One HTTP request, counted in the metrics and, at debug level, logged. */
  private async attempt<T>(
    request: PreparedRequest<T>,
    headers: Record<string, string>,
    scope: ReadScope,
    readDeadline: number,
    attempt: number,
  ): Promise<Loaded<T>> {
    const started = performance.now()
    const cache = !this.options.cache ? 'off' : scope.fresh ? 'bypass' : 'miss'
    let status: UpstreamStatus = 'error'
    try {
      // Its span is the parent named in the traceparent sent upstream.
      const answer = await traceUpstreamCall(
        scope.trace,
        request.endpoint.template,
        attempt,
        headers,
        async (span) => {
          span.setAttribute(ATTR_GATEWAY_CACHE, cache)
          const answer = await this.exchange(request, headers, scope.signal, readDeadline)
          span.setAttribute('http.response.status_code', answer.status)
          return answer
        },
      )
      status = answer.status
      return answer.loaded
    } catch (error) {
      const failure = error as UpstreamError
      status = failure.status ?? (failure.code === 'UPSTREAM_TIMEOUT' ? 'timeout' : 'error')
      throw error
    } finally {
      const ms = performance.now() - started
      const { template } = request.endpoint
      this.options.metrics?.upstreamRequest(template, status, ms / 1000)
      this.options.logger?.debug(
        {
          endpoint: template,
          status,
          ms: Math.round(ms),
          attempt,
          cache,
          requestId: scope.requestId,
        },
        'upstream call',
      )
    }
  }

  private async exchange<T>(
    request: PreparedRequest<T>,
    headers: Record<string, string>,
    operationEnded: AbortSignal,
    readDeadline: number,
  ): Promise<{ loaded: Loaded<T>; status: number }> {
    const { endpoint } = request
    // One controller, a plain timer and one listener: AbortSignal.timeout and AbortSignal.any
    // cost several times more, for each of the hundreds of requests a traversal sends.
    const deadline = new AbortController()
    let timedOut = false
    const timer = setTimeout(
      () => {
        timedOut = true
        deadline.abort(UPSTREAM_TIMED_OUT)
      },
      Math.max(1, readDeadline - Date.now()),
    )
    const onEnded = () => deadline.abort(operationEnded.reason)
    if (operationEnded.aborted) onEnded()
    else operationEnded.addEventListener('abort', onEnded, { once: true })
    let text: string
    let status: number
    let cacheControl: string | string[] | undefined
    try {
      const response = await this.dispatcher.request({
        origin: this.origin,
        path: `${this.basePath}${request.pathAndQuery}`,
        method: 'GET',
        headers,
        signal: deadline.signal,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      })
      status = response.statusCode
      if (status < 200 || status >= 300) {
        // Free the connection without reading an error body we would not show anyway.
        await response.body.dump()
        const retryAfter = response.headers['retry-after']
        const { code, message } = meaningOfStatus(status)
        throw new UpstreamError(code, endpoint.name, message, {
          status,
          retryAfterSeconds: parseRetryAfter(
            Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
          ),
        })
      }
      cacheControl = response.headers['cache-control']
      text = await response.body.text()
    } catch (error) {
      if (operationEnded.aborted) throw cancelled(endpoint.name)
      throw this.transportError(error, endpoint.name, timedOut)
    } finally {
      clearTimeout(timer)
      operationEnded.removeEventListener('abort', onEnded)
    }
    const value = parseBody(text, endpoint, status)
    return {
      loaded: {
        value,
        cacheControl: Array.isArray(cacheControl) ? cacheControl.join(',') : cacheControl,
      },
      status,
    }
  }

  /**
   * Readiness: whether the upstream answers and accepts the gateway's own token (a 401 or 403 is
   * not ready; without UPSTREAM_TOKEN any answer below 500 is). One check serves every probe for
   * READY_REUSE_MS, so probes never cost one paid call each.
   */
  ready(): Promise<boolean> {
    const now = Date.now()
    if (this.readiness && now - this.readiness.at < READY_REUSE_MS) return this.readiness.answer
    const answer = this.checkReady()
    this.readiness = { at: now, answer }
    return answer
  }

  private async checkReady(): Promise<boolean> {
    const started = performance.now()
    let status: UpstreamStatus = 'error'
    try {
      const response = await this.dispatcher.request({
        origin: this.origin,
        path: `${this.basePath}${READINESS_PATH}?limit=1`,
        method: 'GET',
        headers: this.options.serviceToken
          ? { authorization: `Bearer ${this.options.serviceToken}` }
          : {},
        signal: AbortSignal.timeout(this.options.timeoutMs),
      })
      await response.body.dump()
      const { statusCode } = response
      status = statusCode
      if (this.options.serviceToken && (statusCode === 401 || statusCode === 403)) return false
      return statusCode < 500
    } catch {
      return false
    } finally {
      this.options.metrics?.upstreamRequest(
        READINESS_PATH,
        status,
        (performance.now() - started) / 1000,
      )
    }
  }

  close(): Promise<void> {
    return this.dispatcher.close()
  }

  private transportError(error: unknown, name: string, timedOut: boolean): UpstreamError {
    if (error instanceof UpstreamError) return error
    const code = (error as { code?: string }).code
    if (timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
      return new UpstreamError(
        'UPSTREAM_TIMEOUT',
        name,
        `no complete answer within ${this.options.timeoutMs} ms`,
        { cause: error },
      )
    }
    if (error instanceof undiciErrors.ResponseExceededMaxSizeError) {
      return new UpstreamError('UPSTREAM_BAD_RESPONSE', name, 'response body is too large', {
        cause: error,
      })
    }
    const reason = code ?? (error instanceof Error ? error.message : 'unknown')
    return new UpstreamError('UPSTREAM_ERROR', name, `request failed (${reason})`, {
      cause: error,
    })
  }
}

/** Why a request past its UPSTREAM_TIMEOUT_MS is aborted (one object: no stack per request). */
const UPSTREAM_TIMED_OUT = new DOMException('UPSTREAM_TIMEOUT_MS passed.', 'TimeoutError')

/** JSON-parses and validates a 2xx body; the error names the offending path, never the body. */
function parseBody<T>(text: string, endpoint: Endpoint<unknown, T>, status: number): T {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new UpstreamError('UPSTREAM_BAD_RESPONSE', endpoint.name, 'response body is not JSON', {
      status,
    })
  }
  const parsed = endpoint.response.safeParse(json)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue === undefined || issue.path.length === 0 ? '(root)' : issue.path.join('.')
  throw new UpstreamError(
    'UPSTREAM_BAD_RESPONSE',
    endpoint.name,
    `response does not match the documented shape at ${where}: ${issue?.message ?? 'invalid'}`,
    { status },
  )
}
