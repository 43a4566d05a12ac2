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

/** Each request's operation trace (none without a tracer): src/context.ts hands it to the reads. */
export const traces = new WeakMap<Request, OperationTrace>()

/** W3C trace context only: the caller's `baggage` is not forwarded to the upstream. */
export const propagator = new W3CTraceContextPropagator()

/** One GraphQL operation's SERVER span and what it collects until it ends. */
export interface OperationTrace {
  readonly tracer: Tracer
  readonly span: Span
  /** The operation span's context: the parent of its upstream calls. */
  readonly context: OtelContext
  codes: Set<string>
  /** Reads by cache result (hit, miss, stale, shared). */
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

/** The operation's span, child of the caller's `traceparent` if any, named once it is parsed. */
export function startOperationTrace(
  tracer: Tracer,
  headers: Headers,
  requestId: string,
): OperationTrace {
  const caller = propagator.extract(ROOT_CONTEXT, headers, headersGetter)
  const span = tracer.startSpan('graphql.operation', { kind: SpanKind.SERVER }, caller)
  if (span.isRecording()) span.setAttribute('gateway.request_id', requestId)
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
  state.span.setAttribute('graphql.operation.type', type)
  if (name) {
    state.span.setAttribute('graphql.operation.name', name)
    state.span.updateName(`${type} ${name}`)
  } else state.span.updateName(type)
}

/** Ends the operation's span with what it collected; once, however often called. */
export function endOperationTrace(state: OperationTrace, error?: unknown) {
  if (state.ended) return
  state.ended = true
  const { span } = state
  if (span.isRecording()) {
    if (state.codes.size > 0) span.setAttribute('graphql.error.codes', [...state.codes])
    if (state.upstreamCalls > 0) span.setAttribute('gateway.upstream.calls', state.upstreamCalls)
    for (const [result, count] of state.cache) span.setAttribute(`gateway.cache.${result}`, count)
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
