import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

/**
 * What operators scrape at /metrics; labels never hold a token, a company number or query text.
 * One registry per gateway: several in one process (tests, replicas) keep their own counts.
 */

/** How a GraphQL request ended, as the operation log says it. */
export type OperationOutcome = 'ok' | 'partial' | 'error' | 'refused'

/** What an upstream request ended with: its HTTP status, or no answer at all. */
export type UpstreamStatus = number | 'error' | 'timeout'

/** What the upstream client reports. */
export interface UpstreamMetrics {
  upstreamRequest(endpoint: string, status: UpstreamStatus, seconds: number): void
  cacheRead(result: string): void
}

export class GatewayMetrics implements UpstreamMetrics {
  readonly registry = new Registry()
  private readonly upstreamRequests = new Counter({
    name: 'gateway_upstream_requests_total',
    help: 'HTTP requests sent to the upstream, retries and readiness checks included, by REST path template and HTTP status (or error/timeout).',
    labelNames: ['endpoint', 'status'] as const,
    registers: [this.registry],
  })
  private readonly upstreamDuration = new Histogram({
    name: 'gateway_upstream_request_duration_seconds',
    help: 'Time from sending an upstream request to its complete answer (or failure), by REST path template.',
    labelNames: ['endpoint'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  })
  private readonly cacheReads = new Counter({
    name: 'gateway_cache_reads_total',
    help: 'Upstream reads asked of the cache, by result: hit, miss, stale (served after an upstream failure) or shared (joined a read in flight).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  })
  private readonly operations = new Counter({
    name: 'gateway_operations_total',
    help: 'GraphQL requests by outcome: ok, partial (data and errors), error (errors, no data), refused (before execution).',
    labelNames: ['status'] as const,
    registers: [this.registry],
  })
  private readonly operationDuration = new Histogram({
    name: 'gateway_operation_duration_seconds',
    help: 'Time to answer a GraphQL request, from its arrival to its response.',
    labelNames: ['status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  })
  readonly redisFailures = new Counter({
    name: 'gateway_redis_failures_total',
    help: 'Redis commands that failed or were not sent because Redis was unavailable; requests were served without Redis meanwhile.',
    registers: [this.registry],
  })

  constructor() {
    collectDefaultMetrics({ register: this.registry })
  }

  /** Open circuits per path template, read at each scrape: how many, never which tokens'. */
  watchCircuits(openByEndpoint: () => Map<string, number>): void {
    new Gauge({
      name: 'gateway_upstream_circuits_open',
      help: 'Circuits of an endpoint (one per upstream token) open on this replica after repeated upstream failures: its reads are answered stale or refused without calling the upstream. By REST path template.',
      labelNames: ['endpoint'] as const,
      registers: [this.registry],
      collect() {
        for (const [endpoint, open] of openByEndpoint()) this.set({ endpoint }, open)
      },
    })
  }

  upstreamRequest(endpoint: string, status: UpstreamStatus, seconds: number): void {
    this.upstreamRequests.inc({ endpoint, status: String(status) })
    this.upstreamDuration.observe({ endpoint }, seconds)
  }

  cacheRead(result: string): void {
    this.cacheReads.inc({ result })
  }

  operation(outcome: OperationOutcome, seconds: number): void {
    this.operations.inc({ status: outcome })
    this.operationDuration.observe({ status: outcome }, seconds)
  }

  /** The text a Prometheus scrape reads, with its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() }
  }
}
