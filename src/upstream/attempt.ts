import type { Logger } from 'pino'
import type { UpstreamMetrics, UpstreamStatus } from '../observability/metrics.js'
import { ATTR_GATEWAY_CACHE } from '../observability/operation-trace.js'
import { traceUpstreamCall } from '../observability/upstream-spans.js'
import type { Loaded } from './cache/read-cache.js'
import type { PreparedRequest } from './endpoint.js'
import type { UpstreamError } from './errors.js'
import type { ReadScope } from './read-scope.js'
import { parseBody } from './response.js'
import type { UpstreamHttp } from './send.js'

/**
 * One HTTP request of a read, its answer checked against the endpoint's schema, seen by
 * operators: a span in the operation's trace (the parent named in the `traceparent` sent
 * upstream), counted in the metrics and, at debug level, logged.
 */
export class Attempts {
  constructor(
    private readonly http: UpstreamHttp,
    /** There is a cache of reads: a request is then a miss, or a bypass for a fresh read. */
    private readonly cached: boolean,
    private readonly metrics: UpstreamMetrics | undefined,
    private readonly logger: Logger | undefined,
  ) {}

  /** The `attempt`-th request of a read (1 for the first), which must be done by `readDeadline`. */
  async make<T>(
    request: PreparedRequest<T>,
    headers: Record<string, string>,
    scope: ReadScope,
    readDeadline: number,
    attempt: number,
  ): Promise<Loaded<T>> {
    const started = performance.now()
    const { endpoint } = request
    const cache = !this.cached ? 'off' : scope.fresh ? 'bypass' : 'miss'
    let status: UpstreamStatus = 'error'
    try {
      const answer = await traceUpstreamCall(
        scope.trace,
        endpoint.template,
        attempt,
        headers,
        async (span) => {
          span.setAttribute(ATTR_GATEWAY_CACHE, cache)
          const { pathAndQuery } = request
          const got = await this.http.get(
            pathAndQuery,
            headers,
            endpoint.name,
            scope.signal,
            readDeadline,
          )
          const value = parseBody(got.text, endpoint, got.status)
          span.setAttribute('http.response.status_code', got.status)
          return { status: got.status, loaded: { value, cacheControl: got.cacheControl } }
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
      this.metrics?.upstreamRequest(endpoint.template, status, ms / 1000)
      this.logger?.debug(
        {
          endpoint: endpoint.template,
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
}
