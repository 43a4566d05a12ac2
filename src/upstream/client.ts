import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'pino'
import type { UpstreamMetrics } from '../observability/metrics.js'
import { recordCacheRead } from '../observability/upstream-spans.js'
import { Attempts } from './attempt.js'
import type { Begins } from './begin.js'
import type { Loaded, Made, ReadCache } from './cache/read-cache.js'
import type { Circuits } from './circuit.js'
import type { PreparedRequest } from './endpoint.js'
import { asCallersOwn, cancelled, isCallersOwn, UpstreamError } from './errors.js'
import { type Claim, type PassRequest, SendGate } from './gate.js'
import type { UpstreamRateLimiter } from './rate-limit.js'
import type { Caller, ReadScope } from './read-scope.js'
import { Readiness } from './readiness.js'
import { DEFAULT_RETRY_POLICY, Retries, type RetryPolicy } from './retry.js'
import { type SendOptions, UpstreamHttp } from './send.js'

export interface UpstreamClientOptions extends SendOptions {
  /** Service token (UPSTREAM_TOKEN); when absent the caller's token is forwarded. */
  serviceToken?: string | undefined
  /** Name of the header that selects the response language. */
  languageHeader: string
  /** Keyed hash of an upstream token: what cache keys and rate buckets hold, never the token. */
  tokenKey(token: string): string
  /** Without a service token: the upstream answered a request sent with the caller's token
   *  (its `tokenKey`) 2xx, so the token is one the upstream knows. */
  onTokenAccepted?: ((tokenKey: string) => void) | undefined
  /** Reads reused across operations (CACHE_TTL_SECONDS > 0). */
  cache?: ReadCache | undefined
  /** UPSTREAM_RATE_LIMIT per token, CALLER_RATE_LIMIT, and the upstream's own 429 Retry-After. */
  rateLimiter?: UpstreamRateLimiter | undefined
  /** With Redis: what each request asks it before it is sent, in one round trip. */
  begins?: Begins | undefined
  /** UPSTREAM_CIRCUIT_FAILURES: endpoints that keep failing are left alone for a while. */
  circuits?: Circuits | undefined
  /** Counts every request sent and every cache read. */
  metrics?: UpstreamMetrics | undefined
  retry?: RetryPolicy
  logger?: Logger
}

/**
 * The upstream reads of every operation, composed: the cache of reads, then for each request
 * sent a connection in its caller's turn, its rate turn and, for a read through the cache, the
 * shared entry's lookup and lock (src/upstream/gate.ts), the endpoint's circuit
 * (src/upstream/circuit.ts), one request drawn from the operation's budget, the attempt itself
 * (src/upstream/attempt.ts) and retries within UPSTREAM_TIMEOUT_MS (src/upstream/retry.ts).
 * Knows nothing of GraphQL.
 */
export class UpstreamClient {
  private readonly http: UpstreamHttp
  private readonly gate: SendGate
  private readonly attempts: Attempts
  private readonly retries: Retries
  private readonly readiness: Readiness
  /** UPSTREAM_TOKEN's keyed hash, made once. */
  private readonly serviceTokenKey: string | undefined
  /** A caller's token's keyed hash, made once per operation (its Caller), kept no longer. */
  private readonly callerTokenKeys = new WeakMap<Caller, string>()

  constructor(private readonly options: UpstreamClientOptions) {
    this.serviceTokenKey =
      options.serviceToken === undefined ? undefined : options.tokenKey(options.serviceToken)
    this.http = new UpstreamHttp(options)
    this.gate = new SendGate(
      options.maxConnections,
      options.timeoutMs,
      options.rateLimiter,
      options.begins,
    )
    this.attempts = new Attempts(this.http, !!options.cache, options.metrics, options.logger)
    this.retries = new Retries(options.retry ?? DEFAULT_RETRY_POLICY)
    this.readiness = new Readiness(this.http, options.serviceToken, options.metrics)
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
      const served = await cache.read(
        key,
        scope,
        (claim) => this.load(request, scope, token, tokenKey, claim),
        () =>
          new UpstreamError(
            'UPSTREAM_TIMEOUT',
            endpoint.name,
            "not read: another replica's read of it had not landed by this operation's deadline (OPERATION_TIMEOUT_MS)",
            { callersOwn: true },
          ),
      )
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
   * Reads from the upstream. Each request passes the gate (bounded by the operation's deadline
   * and end), is drawn from the operation's budget just before it is sent, and what is worth
   * retrying is retried within UPSTREAM_TIMEOUT_MS counted from the read's first send. With a
   * `claim` (a read through the cache), a request may end unsent: how is returned.
   */
  private load<T>(
    request: PreparedRequest<T>,
    scope: ReadScope,
    token: string,
    tokenKey: string,
  ): Promise<Loaded<T>>
  private load<T>(
    request: PreparedRequest<T>,
    scope: ReadScope,
    token: string,
    tokenKey: string,
    claim: Claim,
  ): Promise<Made<T>>
  private async load<T>(
    request: PreparedRequest<T>,
    scope: ReadScope,
    token: string,
    tokenKey: string,
    claim?: Claim,
  ): Promise<Made<T>> {
    const { name } = request.endpoint
    const headers = this.headers(token, scope)
    const circuit = this.options.circuits?.of(request.endpoint.template, tokenKey)
    /** When the read must be done; set when its first request is sent. */
    let readDeadline = Number.POSITIVE_INFINITY
    let attempts = 0
    let failure: UpstreamError | undefined
    for (;;) {
      const passed = await this.pass({
        scope,
        tokenKey,
        readDeadline,
        endpoint: name,
        claim,
      })
      if (passed.kind !== 'go') return passed
      const { release } = passed
      const open = await circuit?.admit(name)
      if (open) {
        release()
        // A retry the circuit refuses leaves the read failed with what the upstream said (and
        // when the circuit is tried again).
        throw failure ? this.failed(circuit?.told(failure) ?? failure, attempts, scope) : open
      }
      if (!scope.spend()) {
        release()
        circuit?.unsent()
        // A retry the budget refuses leaves the read failed with what the upstream said (the
        // operation's own budget: another that joined the read may retry it within its own).
        if (failure) throw this.failed(asCallersOwn(failure), attempts, scope)
        throw new UpstreamError(
          'QUERY_TOO_COSTLY',
          name,
          'not read: the operation has spent its budget of upstream calls (MAX_OPERATION_COST)',
        )
      }
      try {
        if (attempts === 0) {
          readDeadline = Date.now() + this.options.timeoutMs
          this.retries.started()
        }
        attempts++
        const loaded = await this.attempts.make(request, headers, scope, readDeadline, attempts)
        if (this.serviceTokenKey === undefined) this.options.onTokenAccepted?.(tokenKey)
        await circuit?.ended()
        return loaded
      } catch (error) {
        failure = error as UpstreamError
      } finally {
        release()
      }
      if (failure.cancelled) {
        await circuit?.ended(failure)
        throw failure
      }
      await this.gate.slowDown(tokenKey, failure)
      const delay = this.retries.delayAfter(failure, attempts, readDeadline)
      await circuit?.ended(failure, delay === undefined)
      if (delay === undefined) throw this.failed(circuit?.told(failure) ?? failure, attempts, scope)
      // A retry that would end past the operation's deadline: report what happened instead (the
      // operation's own deadline: another that joined the read may retry it within its own).
      if (Date.now() + delay >= scope.deadline) {
        throw this.failed(asCallersOwn(failure), attempts, scope)
      }
      claim?.unsent()
      this.options.logger?.debug(
        {
          endpoint: name,
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
        throw cancelled(name)
      }
    }
  }

  /** What every request of a read is sent with. */
  private headers(token: string, scope: ReadScope): Record<string, string> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${token}`,
    }
    const { language } = scope.caller
    if (language !== undefined) headers[this.options.languageHeader] = language
    if (scope.requestId !== undefined) headers['x-request-id'] = scope.requestId
    return headers
  }

  /** Through the gate; a wait that fails (other than by the operation's end) fails the read. */
  private async pass(request: PassRequest) {
    try {
      return await this.gate.pass(request)
    } catch (error) {
      const failure = error as UpstreamError
      throw failure.cancelled ? failure : this.failed(failure, 0, request.scope)
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

  /** Whether the upstream answers and accepts the gateway's token (src/upstream/readiness.ts). */
  ready(): Promise<boolean> {
    return this.readiness.ready()
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
