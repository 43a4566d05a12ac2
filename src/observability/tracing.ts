import {
  DiagLogLevel,
  defaultTextMapSetter,
  diag,
  INVALID_SPAN_CONTEXT,
  type Context as OtelContext,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from '@opentelemetry/api'
import { parseKeyPairsIntoRecord, W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources'
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
} from '@opentelemetry/sdk-trace-node'
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVICE_NAME,
} from '@opentelemetry/semantic-conventions'
import { ConfigError } from '../config.js'

/**
 * Traces (contract/runtime.md, OTEL_EXPORTER_OTLP_ENDPOINT and `traceparent`), with the
 * OpenTelemetry SDK:
 *
 * - `startTelemetry(env)`: the tracer the gateway uses. With OTEL_EXPORTER_OTLP_ENDPOINT set, its
 *   provider's BatchSpanProcessor exports over OTLP/HTTP, protobuf unless
 *   OTEL_EXPORTER_OTLP_PROTOCOL (or ..._TRACES_PROTOCOL) is `http/json`. Unset, the provider
 *   exports nothing and records nothing, but still makes span ids: every upstream call carries a
 *   `traceparent` (the contract's promise holds without a collector, and the upstream's own
 *   traces can still be joined to the caller's).
 * - `useOperationTracing(tracer)`: yoga plugin, one SERVER span per GraphQL operation
 *   (`query Traversal`), continuing the caller's `traceparent` (or starting a new trace).
 * - `operationTraceOf(request)`: the operation's trace, which the context factory hands to the
 *   upstream client with the rest of the read's scope.
 * - `traceUpstreamCall(trace, ...)`: what the upstream client wraps each HTTP request in: one
 *   CLIENT span `GET <path template>`, whose context is written into the request's headers as
 *   `traceparent`.
 * - `recordCacheRead(trace, result)`: counts on the operation's span the reads served without an
 *   HTTP request of their own (hit, shared, stale).
 *
 * Decisions:
 *
 * - Nothing global: the provider is not registered, and an operation's trace travels to its
 *   upstream calls explicitly (request → context → read scope), not through AsyncLocalStorage.
 *   On Node 20 an AsyncLocalStorage context manager puts a hook on every promise of the process,
 *   a cost paid on every request whether traces are exported or not; and two gateways in one
 *   process (tests, replicas) each keep their own tracer.
 * - No undici (nor http) auto-instrumentation. The gateway's own span around each upstream request
 *   is the single source: it knows what undici's cannot (the REST path template rather than a URL
 *   full of company numbers and filters, the attempt number, the cache's part), and undici's would
 *   be a second CLIENT span for the same request and would put itself, not ours, in the
 *   `traceparent` sent upstream. The http instrumentation would add a SERVER span per request
 *   around ours, and spans for every /health, /ready and /metrics probe. Both also patch modules
 *   globally and need the global context manager.
 * - One span per HTTP request sent upstream (each attempt, retries included: `attempt`,
 *   `http.request.resend_count`), never per read: a read the cache answers sends nothing, so it
 *   is not an upstream call and gets no span (a 50-company page on a warm cache would otherwise
 *   make hundreds of spans per operation); it is counted on the operation's span instead
 *   (`gateway.cache.hit`, `.shared`, `.stale`, `.miss` through `recordCacheRead`). The upstream
 *   span's `gateway.cache` says how the request relates to the cache, known before it is sent
 *   (`miss`, or `bypass` for a `Cache-Control: no-cache` operation, `off` without a cache), as the
 *   debug log line does; whether a failed read was then answered stale is only known after its
 *   requests ended, so that is the operation span's `gateway.cache.stale`.
 * - The operation span is started in yoga's `instrumentation.operation` hook, which wraps
 *   everything one GraphQL operation does (params, parse, validate, context, execute, result
 *   hooks), and ends when its result is ready to be sent, or with the last part of a streamed
 *   (`@defer`/`@stream`) result.
 * - Sampling: a caller's sampled `traceparent` is respected (the spans are recorded and, with a
 *   collector, exported); without a collector nothing else is recorded, and without a caller's
 *   trace the SDK's default (always on) applies when exporting.
 * - No query text, variables, URLs or tokens in any span: operation name and type, error codes,
 *   path templates, statuses, counts, the request id.
 */

const TRACER = 'company-data-gateway'

/** Attribute names of the semantic conventions still "incubating" (copied, as their docs ask). */
const ATTR_URL_TEMPLATE = 'url.template'
const ATTR_GRAPHQL_OPERATION_NAME = 'graphql.operation.name'
const ATTR_GRAPHQL_OPERATION_TYPE = 'graphql.operation.type'

/** The gateway's own attributes. */
export const ATTR_GATEWAY_CACHE = 'gateway.cache'
export const ATTR_GATEWAY_ATTEMPT = 'gateway.upstream.attempt'
export const ATTR_GRAPHQL_ERROR_CODES = 'graphql.error.codes'
export const ATTR_GATEWAY_UPSTREAM_CALLS = 'gateway.upstream.calls'
export const ATTR_GATEWAY_REQUEST_ID = 'gateway.request_id'
/** Name of the operation span before its document is known (and when it never is). */
export const OPERATION_SPAN = 'graphql.operation'

export interface Telemetry {
  /** What the gateway makes its spans with; none when OTEL_SDK_DISABLED=true. */
  readonly tracer: Tracer | undefined
  /** Spans are exported (OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  readonly exporting: boolean
  /**
   * Exports the spans still buffered and stops the exporter, waiting at most `timeoutMs` (no
   * bound when absent) for a collector that does not answer. Never rejects: a failed export is
   * the SDK's to report (`log`). Calls after the first return the first one's promise.
   */
  shutdown(timeoutMs?: number): Promise<void>
}

/** Where the SDK's own warnings go (export failures…); pino's logger fits. */
export interface TelemetryLog {
  warn(message: string): void
  error(message: string): void
}

/**
 * The gateway's tracer, from `env` (not `process.env`): with `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `..._TRACES_ENDPOINT`) set, spans are exported to `<endpoint>/v1/traces` (or the traces
 * endpoint as it is) over `http/protobuf` by default or `http/json`, with the headers of
 * `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS` and `OTEL_SERVICE_NAME` (over `serviceName`). Unset: span
 * ids and `traceparent` only, nothing recorded or exported. `OTEL_SDK_DISABLED=true`: no tracer
 * at all. Other OTEL_* settings (sampler, batch sizes, timeouts) the SDK reads from `process.env`
 * itself. A bad endpoint or protocol throws a ConfigError naming the variable.
 */
export function startTelemetry(
  env: Record<string, string | undefined>,
  serviceName = 'company-data-gateway',
  log?: TelemetryLog,
): Telemetry {
  const setting = (name: string) => {
    const value = env[name]?.trim()
    return value === '' ? undefined : value
  }
  if (setting('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') {
    return { tracer: undefined, exporting: false, shutdown: () => Promise.resolve() }
  }
  const endpoint = setting('OTEL_EXPORTER_OTLP_ENDPOINT')
  const tracesEndpoint = setting('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
  if (endpoint === undefined && tracesEndpoint === undefined) return propagateOnly()

  // The OTel spec: the generic endpoint is a base to which the signal's path is appended, the
  // signal-specific one is used as it is.
  const url = tracesEndpoint ?? `${endpoint}${endpoint?.endsWith('/') ? '' : '/'}v1/traces`
  const urlVariable = tracesEndpoint
    ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    : 'OTEL_EXPORTER_OTLP_ENDPOINT'
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new ConfigError(`Invalid setting ${urlVariable}: expected an http(s) URL`)
  }
  const protocolVariable = setting('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL'
  const protocol = setting(protocolVariable) ?? 'http/protobuf'
  const headers = {
    ...parseKeyPairsIntoRecord(setting('OTEL_EXPORTER_OTLP_HEADERS')),
    ...parseKeyPairsIntoRecord(setting('OTEL_EXPORTER_OTLP_TRACES_HEADERS')),
  }
  let exporter: JsonTraceExporter | ProtobufTraceExporter
  if (protocol === 'http/protobuf') exporter = new ProtobufTraceExporter({ url, headers })
  else if (protocol === 'http/json') exporter = new JsonTraceExporter({ url, headers })
  else {
    throw new ConfigError(
      `Invalid setting ${protocolVariable}: expected http/protobuf or http/json (grpc is not supported)`,
    )
  }

  if (log) {
    const text = (message: string, args: unknown[]) =>
      [message, ...args.map((arg) => (arg instanceof Error ? arg.message : String(arg)))].join(' ')
    diag.setLogger(
      {
        error: (message, ...args) => log.error(`opentelemetry: ${text(message, args)}`),
        warn: (message, ...args) => log.warn(`opentelemetry: ${text(message, args)}`),
        info: () => {},
        debug: () => {},
        verbose: () => {},
      },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    )
  }

  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({ [ATTR_SERVICE_NAME]: setting('OTEL_SERVICE_NAME') ?? serviceName }),
    ),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  })
  let stopped: Promise<void> | undefined
  return {
    tracer: provider.getTracer(TRACER),
    exporting: true,
    shutdown(timeoutMs?: number) {
      stopped ??= (async () => {
        let timer: NodeJS.Timeout | undefined
        const flushed = provider.shutdown().catch((error: unknown) => {
          log?.warn(`opentelemetry: shutdown failed: ${errorMessage(error)}`)
        })
        const bound =
          timeoutMs === undefined
            ? flushed
            : new Promise<void>((resolve) => {
                timer = setTimeout(resolve, timeoutMs)
              })
        await Promise.race([flushed, bound])
        clearTimeout(timer)
        if (log) diag.disable()
      })()
      return stopped
    },
  }
}

/**
 * No collector: spans that record nothing unless the caller's `traceparent` asked for sampling
 * (then recorded and dropped, to pass the caller's decision on), ids and `traceparent` all the same.
 */
export function propagateOnly(): Telemetry {
  const provider = new BasicTracerProvider({
    sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }),
  })
  return {
    tracer: provider.getTracer(TRACER),
    exporting: false,
    shutdown: () => Promise.resolve(),
  }
}

/** W3C trace context only: the caller's `baggage` is not forwarded to the upstream. */
const propagator = new W3CTraceContextPropagator()

/** One GraphQL operation's trace: its span, and what the span collects until it ends. */
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

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
