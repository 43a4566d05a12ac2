import {
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api'
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
} from '@opentelemetry/semantic-conventions'
import type { Logger } from './logger.js'
import type { UpstreamMetrics, UpstreamStatus } from './metrics.js'
import { errorMessage, type OperationTrace, propagator } from './operation-trace.js'

interface UpstreamRequest {
  scope: { trace?: OperationTrace | undefined; requestId?: string | undefined }
  /** The REST path template, e.g. `/v1/lists/{id}`. */
  template: string
  /** Its headers: the span's context is written into them (`traceparent`, `tracestate`). */
  headers: Record<string, string>
}

/**
 * One HTTP request sent upstream: a CLIENT span `GET <template>` (its context written into the
 * headers before `send`), a count and duration in the metrics, a debug log line. `attempt`: 1 for
 * a read's first request; `cache`: `miss`, `bypass` (a no-cache read) or `off`.
 */
export async function observeUpstreamRequest<T extends { status: number }>(
  request: UpstreamRequest,
  attempt: number,
  cache: string,
  sink: { metrics?: UpstreamMetrics | undefined; logger?: Logger | undefined },
  send: () => Promise<T>,
): Promise<T> {
  const { template, scope } = request
  const { trace: operation, requestId } = scope
  const { metrics, logger } = sink
  const started = performance.now()
  const span = operation?.tracer.startSpan(
    `GET ${template}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: 'GET',
        'url.template': template,
        'gateway.upstream.attempt': attempt,
        'gateway.cache': cache,
        ...(attempt > 1 ? { [ATTR_HTTP_REQUEST_RESEND_COUNT]: attempt - 1 } : {}),
      },
    },
    operation?.context,
  )
  if (operation && span) {
    operation.upstreamCalls++
    propagator.inject(trace.setSpan(ROOT_CONTEXT, span), request.headers, defaultTextMapSetter)
  }
  let status: UpstreamStatus = 'error'
  try {
    const answer = await send()
    status = answer.status
    return answer
  } catch (error) {
    const { code, status: answered } = (error ?? {}) as { code?: unknown; status?: unknown }
    status =
      typeof answered === 'number' ? answered : code === 'UPSTREAM_TIMEOUT' ? 'timeout' : 'error'
    const type =
      typeof code === 'string' ? code : error instanceof Error ? error.constructor.name : 'error'
    span?.setAttribute(ATTR_ERROR_TYPE, type)
    span?.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) })
    throw error
  } finally {
    if (typeof status === 'number') span?.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status)
    span?.end()
    const ms = performance.now() - started
    metrics?.upstreamRequest(template, status, ms / 1000)
    if (logger?.isLevelEnabled('debug')) {
      const line = { endpoint: template, status, ms: Math.round(ms), attempt, cache, requestId }
      logger.debug(line, 'upstream call')
    }
  }
}

/** Counts a read on the operation's span by how the cache served it (`gateway.cache.hit: n`…). */
export function recordCacheRead(operation: OperationTrace | undefined, result: string): void {
  operation?.cache.set(result, (operation.cache.get(result) ?? 0) + 1)
}
