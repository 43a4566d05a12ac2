import {
  type Context as OtelContext,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'

/** Attribute names of the semantic conventions still "incubating" (copied, as their docs ask). */
const ATTR_GRAPHQL_OPERATION_NAME = 'graphql.operation.name'
const ATTR_GRAPHQL_OPERATION_TYPE = 'graphql.operation.type'

/** The gateway's own attributes. */
export const ATTR_GATEWAY_CACHE = 'gateway.cache'
const ATTR_GRAPHQL_ERROR_CODES = 'graphql.error.codes'
const ATTR_GATEWAY_UPSTREAM_CALLS = 'gateway.upstream.calls'
const ATTR_GATEWAY_REQUEST_ID = 'gateway.request_id'
/** Name of the operation span before its document is known (and when it never is). */
const OPERATION_SPAN = 'graphql.operation'

/** Each request's operation trace (none without a tracer): src/context.ts hands it to the reads. */
export const traces = new WeakMap<Request, OperationTrace>()

/** W3C trace context only: the caller's `baggage` is not forwarded to the upstream. */
export const propagator = new W3CTraceContextPropagator()

/**
 * One GraphQL operation's trace: its SERVER span, and what the span collects until it ends
 * (src/operation/use-operation-tracing.ts starts and ends it; the upstream client adds its
 * calls and cache reads through ./upstream-spans.ts).
 */
export interface OperationTrace {
  readonly tracer: Tracer
  readonly span: Span
  /** The operation span's context: the parent of its upstream calls. */
  readonly context: OtelContext
  codes: Set<string>
  /** Reads by cache result (hit, miss, stale, shared), as `recordCacheRead` was told. */
  cache: Map<string, number>
  upstreamCalls: number
  /** The result is a stream: the span ends with its last part, not with the operation hook. */
  streaming: boolean
  /** Errors but no data: refused before execution, or its root field failed. */
  failed: boolean
  ended: boolean
}

const headersGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
}

/**
 * Starts one operation's SERVER span, child of the caller's `traceparent` (in `headers`) when
 * there is one, else the root of a new trace.
 */
export function startOperationTrace(
  tracer: Tracer,
  headers: Headers,
  requestId: string,
): OperationTrace {
  const caller = propagator.extract(ROOT_CONTEXT, headers, headersGetter)
  const span = tracer.startSpan(OPERATION_SPAN, { kind: SpanKind.SERVER }, caller)
  if (span.isRecording()) span.setAttribute(ATTR_GATEWAY_REQUEST_ID, requestId)
  return {
    tracer,
    span,
    context: trace.setSpan(caller, span),
    codes: new Set(),
    cache: new Map(),
    upstreamCalls: 0,
    streaming: false,
    failed: false,
    ended: false,
  }
}

/** Names the span after its operation (`query Traversal`, or `query` when it has no name). */
export function nameOperationTrace(state: OperationTrace, type: string, name: string | undefined) {
  state.span.setAttribute(ATTR_GRAPHQL_OPERATION_TYPE, type)
  if (name) {
    state.span.setAttribute(ATTR_GRAPHQL_OPERATION_NAME, name)
    state.span.updateName(`${type} ${name}`)
  } else state.span.updateName(type)
}

/** Ends the operation's span with what it collected; once, however often called. */
export function endOperationTrace(state: OperationTrace, error?: unknown) {
  if (state.ended) return
  state.ended = true
  const { span } = state
  if (span.isRecording()) {
    if (state.codes.size > 0) span.setAttribute(ATTR_GRAPHQL_ERROR_CODES, [...state.codes])
    if (state.upstreamCalls > 0) span.setAttribute(ATTR_GATEWAY_UPSTREAM_CALLS, state.upstreamCalls)
    for (const [result, count] of state.cache)
      span.setAttribute(`${ATTR_GATEWAY_CACHE}.${result}`, count)
    if (error !== undefined) {
      span.recordException(error instanceof Error ? error : String(error))
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) })
    } else if (state.failed) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: [...state.codes].join(', ') })
    }
  }
  span.end()
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
