import type { Logger } from 'pino'
import type { UpstreamMetrics } from '../observability/metrics.js'
import { observeUpstreamRequest, recordCacheRead } from '../observability/upstream-spans.js'
import { type Admission, admit, FairShare, Twins } from './admission.js'
import { type ReadCache, ttlOf } from './cache.js'
import type { PreparedRequest } from './endpoint.js'
import { isCallersOwn, staleMayAnswer, UpstreamError } from './errors.js'
import { InFlight, LOCKED } from './in-flight.js'
import { RateLimiter } from './rate-limit.js'
import type { CacheResult, Caller, Read, ReadScope } from './read-scope.js'
import type { RedisLink } from './redis.js'
import { type CircuitOptions, Resilience, type RetryPolicy } from './resilience.js'
import { type SendOptions, UpstreamHttp } from './send.js'
import { parseBody } from './validate.js'

export interface UpstreamClientOptions extends SendOptions {
  /** UPSTREAM_TOKEN; unset: the caller's own token is forwarded. */
  serviceToken?: string | undefined
  languageHeader: string
  /** The keyed hash of an upstream token: what keys and buckets hold, never the token. */
  tokenKey(token: string): string
  /** Without a service token: the upstream answered the caller's token (its `tokenKey`) 2xx. */
  onTokenAccepted?: ((tokenKey: string) => void) | undefined
  /** Set (CACHE_TTL_SECONDS > 0): reads reused across operations, and joined while in flight. */
  cache?: ReadCache | undefined
  redis?: RedisLink | undefined
  rate?: { perToken?: number | undefined; perCaller?: number | undefined }
  circuit?: CircuitOptions | undefined
  retry?: RetryPolicy
  metrics?: UpstreamMetrics | undefined
  logger?: Logger
}

type Headers = Record<string, string>
type Reading<T> = Read & { request: PreparedRequest<T>; key: string; headers: Headers }
type Made<T> = { value: T; result: CacheResult }
const READINESS = { endpoint: 'GET /v1/lists', template: '/v1/lists' }
/** Another replica's read ended without an answer to take: this one is made here after all. */
const LOOK_AGAIN = new UpstreamError('UPSTREAM_ERROR', '-', 'not answered', { callersOwn: true })

/** The read path, no stage calling back into an earlier one: 1. the cache → 2. resilience →
 *  3. joining a read in flight → 4. admission → 5. an undici GET → 6. validation → 7. the store. */
export class UpstreamClient {
  private readonly http: UpstreamHttp
  readonly resilience: Resilience
  private readonly admission: Admission
  private readonly inFlight: InFlight | undefined
  private readonly serviceTokenKey: string | undefined
  private readonly callerTokenKeys = new WeakMap<Caller, string>()
  private readiness: { at: number; ready: Promise<boolean> } | undefined

  constructor(private readonly options: UpstreamClientOptions) {
    const { serviceToken, redis, rate, logger } = options
    this.serviceTokenKey = serviceToken === undefined ? undefined : options.tokenKey(serviceToken)
    this.http = new UpstreamHttp(options)
    this.resilience = new Resilience(options.retry, options.circuit, !serviceToken, logger)
    const limiter = new RateLimiter(rate?.perToken, rate?.perCaller, redis)
    const share = new FairShare(options.maxConnections)
    const twins = options.cache ? new Twins() : undefined
    this.admission = { share, limiter, timeoutMs: options.timeoutMs, twins }
    this.inFlight = options.cache ? new InFlight(redis) : undefined
  }

  /** The keyed hash of the token `caller`'s reads are sent with: the scope of what they share. */
  tokenScope(caller: Caller): string | undefined {
    if (this.serviceTokenKey !== undefined || !caller.token) return this.serviceTokenKey
    const key = this.callerTokenKeys.get(caller) ?? this.options.tokenKey(caller.token)
    return this.callerTokenKeys.set(caller, key) && key
  }

  /** One GET's body parsed by the endpoint's schema: from the cache, or from the upstream. */
  async send<T>(request: PreparedRequest<T>, scope: ReadScope): Promise<T> {
    const endpoint = request.endpoint.name
    const template = endpoint.replace(/^GET /, '') // metrics and logs name the path template
    const token = this.options.serviceToken ?? scope.caller.token
    const tokenKey = this.tokenScope(scope.caller)
    if (!token || !tokenKey) {
      const why = 'no bearer token: send an Authorization header or configure UPSTREAM_TOKEN'
      throw new UpstreamError('UNAUTHENTICATED', endpoint, why)
    }
    const { language } = scope.caller
    const headers: Headers = { accept: 'application/json', authorization: `Bearer ${token}` }
    if (language) headers[this.options.languageHeader] = language
    if (scope.requestId !== undefined) headers['x-request-id'] = scope.requestId
    const key = `${tokenKey}:${language ?? '-'}:${request.pathAndQuery}`
    const readDeadline = Infinity // until its first request is sent
    const read = { request, scope, tokenKey, headers, key, endpoint, template, readDeadline }
    const { cache } = this.options
    if (!cache) return (await this.resilience.run(read, (n) => this.attempt(read, n))).value
    // 1. The cache; what has expired is handed down, for stale-if-error.
    const found = await cache.lookup(key, scope.fresh)
    if (found.value !== undefined) return this.served(scope, found.value as T, 'hit')
    try {
      const made = await this.resilience.run(read, (n) => this.attempt(read, n))
      return this.served(scope, made.value, made.result)
    } catch (error) {
      if (found.stale && staleMayAnswer(error)) return this.served(scope, found.stale as T, 'stale')
      // Not served from the cache either: a miss, as the hit ratio operators watch counts it.
      if (!isCallersOwn(error)) this.served(scope, undefined, 'miss', false)
      throw error
    }
  }

  /** One attempt: joins the read if it is under way here, else sends its request. */
  private async attempt<T>(read: Reading<T>, n: number): Promise<Made<T>> {
    const { key, scope } = read
    const { inFlight, options } = this
    const since = scope.fresh ? scope.startedAt : 0
    for (;;) {
      // 3. Joining this process's attempt at it (for a no-cache read, one begun since it started).
      const joined = inFlight?.join<Made<T>>(key, since)
      const made = joined && (await joined.then(shared, joinedFailure))
      if (made) return made
      // 4. Admission; withdrawn when a twin was admitted first: that one is joined.
      const release = await admit(read, this.admission, inFlight && key)
      if (!release) continue
      try {
        if (!inFlight) return await this.request(read, n, false)
        // Joined here from now on; across replicas once its lock is taken (held while it may last).
        return await inFlight.send(key, async () => {
          const held = scope.fresh ? undefined : await inFlight.lock(key, options.timeoutMs + 1000)
          if (held === LOCKED) return this.fromReplica<T>(read, release)
          const value = held ? options.cache?.adopt(key, held) : undefined
          if (value !== undefined) return { value: value as T, result: 'hit' as const }
          return this.request(read, n, held === null)
        })
      } catch (error) {
        if (error !== LOOK_AGAIN) throw error
      } finally {
        release()
      }
    }
  }

  /** What another replica read, once its lock is gone (waited for without a connection). */
  private async fromReplica<T>({ key, scope }: Reading<T>, release: () => void): Promise<Made<T>> {
    release()
    const stored = await this.inFlight?.wait(key, scope)
    const value = stored === undefined ? undefined : this.options.cache?.adopt(key, stored)
    if (value === undefined) throw LOOK_AGAIN
    return { value: value as T, result: 'shared' }
  }

  /** 5–7, drawn from the operation's budget; a refresh that learns the entry must go removes it. */
  private async request<T>(read: Reading<T>, attempt: number, locked: boolean): Promise<Made<T>> {
    const { scope, request, key, tokenKey } = read
    const { cache } = this.options
    const unlock = () => locked && this.inFlight?.unlock(key)
    if (!scope.spend()) {
      unlock()
      const why = 'not read: the operation has spent its budget of upstream calls'
      throw new UpstreamError('QUERY_TOO_COSTLY', read.endpoint, `${why} (MAX_OPERATION_COST)`)
    }
    read.readDeadline = Math.min(read.readDeadline, Date.now() + this.options.timeoutMs)
    const label = !cache ? 'off' : scope.fresh ? 'bypass' : 'miss'
    try {
      const answer = await observeUpstreamRequest(read, attempt, label, this.options, async () => {
        const got = await this.http.get(request.pathAndQuery, read, scope.signal)
        return { ...got, value: parseBody(got.text, request.endpoint, got.status) }
      })
      if (this.serviceTokenKey === undefined) this.options.onTokenAccepted?.(tokenKey)
      const ttl = ttlOf(answer.cacheControl) ?? cache?.options.ttlSeconds ?? 0
      // Not taken by Redis: the lock goes (else it would stand till its PX with no answer).
      if (!(await cache?.store(key, answer.value, answer.text.length, ttl))) unlock()
      return { value: answer.value, result: 'miss' }
    } catch (error) {
      const failure = error as UpstreamError
      if (failure.code === 'RATE_LIMITED' && failure.retryAfterSeconds !== undefined) {
        this.admission.limiter.pause(tokenKey, Math.min(failure.retryAfterSeconds, 300) * 1000)
      }
      const definitive = !staleMayAnswer(failure) && !isCallersOwn(failure)
      if (cache && scope.fresh && definitive) await cache.forget(key)
      else unlock()
      throw failure
    }
  }

  /** Counted as served `result` (a `miss` that failed is not the operation's). */
  private served<T>(scope: ReadScope, value: T, result: CacheResult, operations = true): T {
    if (operations) scope.served(result)
    this.options.metrics?.cacheRead(result)
    recordCacheRead(scope.trace, result)
    return value
  }

  /** Whether the upstream answers and accepts the gateway's token (/ready): one check of the
   *  smallest read answers every probe for 5 s. A 401/403 to UPSTREAM_TOKEN is not ready. */
  ready(): Promise<boolean> {
    if (this.readiness && Date.now() - this.readiness.at < 5000) return this.readiness.ready
    const { serviceToken: token, timeoutMs } = this.options
    const headers: Headers = token ? { authorization: `Bearer ${token}` } : {}
    const check = { ...READINESS, scope: {}, headers, readDeadline: Date.now() + timeoutMs }
    const ready = observeUpstreamRequest(check, 1, 'off', this.options, () =>
      this.http.get('/v1/lists?limit=1', check),
    ).then(
      () => true,
      ({ status = 500 }: UpstreamError) => status < 500 && !(token && [401, 403].includes(status)),
    )
    this.readiness = { at: Date.now(), ready }
    return ready
  }

  close(): Promise<void> {
    return this.http.close()
  }
}

const shared = <T>({ value }: Made<T>): Made<T> => ({ value, result: 'shared' })

/** A joined attempt's failure: undefined when it was its maker's own (the read is made again). */
function joinedFailure(error: unknown): undefined {
  if (isCallersOwn(error)) return undefined
  throw (error as UpstreamError).with({ joined: true })
}
