import {
  defaultTextMapSetter,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  type Span,
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
import { errorMessage, type OperationTrace, propagator } from './operation-trace.js'

/** An attribute name of the semantic conventions still "incubating" (copied, as their docs ask). */
const ATTR_URL_TEMPLATE = 'url.template'
/** The gateway's own: which request of a read this is (1 for the first). */
const ATTR_GATEWAY_ATTEMPT = 'gateway.upstream.attempt'

/** The span a request outside any traced operation runs with: records nothing, sends nothing. */
const UNTRACED = trace.wrapSpanContext(INVALID_SPAN_CONTEXT)

/**
 * Wraps one HTTP request sent upstream in a CLIENT span `GET <endpointTemplate>`, child of the
 * operation's span, and writes its context into `headers` (`traceparent`, and `tracestate` when
 * the caller sent one) before `call` runs: the upstream sees the gateway's span as parent.
 * Attributes set here: url.template, http.request.method, gateway.upstream.attempt (1 for the
 * first request of a read), http.request.resend_count. `call` sets what only it knows, on the
 * span it is given: `span.setAttribute('http.response.status_code', status)` and
 * `span.setAttribute(ATTR_GATEWAY_CACHE, 'miss' | 'bypass' | 'off')`. When `call` throws, the span
 * gets status ERROR, `error.type` (the error's `code`, e.g. UPSTREAM_TIMEOUT, or its class name)
 * and, when the error carries a numeric `status`, http.response.status_code. The span ends when
 * `call` settles. No operation trace: `call` runs with a span that records nothing, and the
 * headers are left alone.
 */
export function traceUpstreamCall<T>(
  operation: OperationTrace | undefined,
  endpointTemplate: string,
  attempt: number,
  headers: Record<string, string>,
  call: (span: Span) => Promise<T>,
): Promise<T> {
  if (!operation) return call(UNTRACED)
  const span = operation.tracer.startSpan(
    `GET ${endpointTemplate}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: 'GET',
        [ATTR_URL_TEMPLATE]: endpointTemplate,
        [ATTR_GATEWAY_ATTEMPT]: attempt,
        ...(attempt > 1 ? { [ATTR_HTTP_REQUEST_RESEND_COUNT]: attempt - 1 } : {}),
      },
    },
    operation.context,
  )
  operation.upstreamCalls++
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter)
  const failed = (error: unknown): never => {
    const { code, status } = (error ?? {}) as { code?: unknown; status?: unknown }
    if (typeof status === 'number') span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status)
    span.setAttribute(
      ATTR_ERROR_TYPE,
      typeof code === 'string' ? code : error instanceof Error ? error.constructor.name : 'error',
    )
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) })
    span.end()
    throw error
  }
  let pending: Promise<T>
  try {
    pending = call(span)
  } catch (error) {
    return Promise.reject(error).catch(failed)
  }
  return pending.then((value) => {
    span.end()
    return value
  }, failed)
}

/**
 * Counts one upstream read on the operation's span by how it was served: call it with each
 * `CacheResult` (hit, miss, stale, shared) the cache reports; the span ends with
 * `gateway.cache.hit: n` and so on. No operation trace: nothing happens.
 */
export function recordCacheRead(operation: OperationTrace | undefined, result: string): void {
  operation?.cache.set(result, (operation.cache.get(result) ?? 0) + 1)
}
