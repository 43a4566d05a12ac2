import {
  context,
  createContextKey,
  DiagLogLevel,
  diag,
  isSpanContextValid,
  type Context as OtelContext,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from '@opentelemetry/api'
import { parseKeyPairsIntoRecord, W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVICE_NAME,
} from '@opentelemetry/semantic-conventions'
import { type DocumentNode, type ExecutionResult, getOperationAST } from 'graphql'
import { isAsyncIterable, type Plugin } from 'graphql-yoga'
import { ConfigError } from './config.js'
import { requestIdOf } from './request-id.js'

/**
 * Traces (contract/runtime.md, OTEL_EXPORTER_OTLP_ENDPOINT and `traceparent`), with the
 * OpenTelemetry SDK:
 *
 * - `startTelemetry(env)`: with OTEL_EXPORTER_OTLP_ENDPOINT set, a NodeTracerProvider registered
 *   globally (AsyncLocalStorage context manager, W3C trace-context propagator only: the caller's
 *   `baggage` is not forwarded to the upstream) whose BatchSpanProcessor exports over OTLP/HTTP,
 *   protobuf unless OTEL_EXPORTER_OTLP_PROTOCOL (or ..._TRACES_PROTOCOL) is `http/json`. Unset:
 *   nothing is set up, and every function below runs against the API's no-op tracer.
 * - `useOperationTracing()`: yoga plugin, one SERVER span per GraphQL operation
 *   (`query Traversal`), continuing the caller's `traceparent` (or starting a new trace), made
 *   the active context while the operation runs so that the upstream spans are its children.
 * - `traceUpstreamCall(...)`: what the upstream client wraps each HTTP request in: one CLIENT span
 *   `GET <path template>`, whose context is written into the request's headers as `traceparent`.
 * - `recordCacheRead(result)`: counts on the operation's span the reads served without an HTTP
 *   request of their own (hit, shared, stale).
 *
 * Decisions:
 *
 * - No undici (nor http) auto-instrumentation. The gateway's own span around each upstream request
 *   is the single source: it knows what undici's cannot (the REST path template rather than a URL
 *   full of company numbers and filters, the attempt number, the cache's part), and undici's would
 *   be a second CLIENT span for the same request and would put itself, not ours, in the
 *   `traceparent` sent upstream. The http instrumentation would add a SERVER span per request
 *   around ours, and spans for every /health, /ready and /metrics probe. Both also patch modules
 *   globally, which a library-free span of our own does not need.
 * - One span per HTTP request sent upstream (each attempt, retries included: `attempt`,
 *   `http.request.resend_count`), never per read: a read the cache answers sends nothing, so it
 *   is not an upstream call and gets no span (a 50-company page on a warm cache would otherwise
 *   make hundreds of spans per operation); it is counted on the operation's span instead
 *   (`gateway.cache.hit`, `.shared`, `.stale`, `.miss` through `recordCacheRead`). The upstream
 *   span's `gateway.cache` says how the request relates to the cache, known before it is sent
 *   (`miss`, or `bypass` for a `Cache-Control: no-cache` operation, `off` without a cache), as the
 *   debug log line does; whether a failed read was then answered stale is only known after its
 *   requests ended, so that is the operation span's `gateway.cache.stale`.
 * - The operation span is made active with yoga's `instrumentation.operation` hook, which wraps
 *   everything one GraphQL operation does (params, parse, validate, context, execute, result
 *   hooks): `context.with()` around it puts every resolver, DataLoader batch and upstream call of
 *   the operation in its context through AsyncLocalStorage. Streamed results (`@defer`/`@stream`)
 *   pull their later parts in that context too, and the span ends with the last part; a single
 *   result ends it as soon as it is ready to be sent.
 * - No query text, variables, URLs or tokens in any span: operation name and type, error codes,
 *   path templates, statuses, counts, the request id.
 * - Cheap when off: with no provider registered the propagator is the API's no-op one, nothing is
 *   extracted, the spans are invalid and each hook returns at its first check.
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
  /**
   * Exports the spans still buffered and stops the exporter, waiting at most `timeoutMs` (no
   * bound when absent) for a collector that does not answer; then unregisters the global tracer
   * provider, propagator and context manager (so a later `startTelemetry` may register again).
   * Never rejects: a failed export is the SDK's to report (`log`). Calls after the first return
   * the first one's promise.
   */
  shutdown(timeoutMs?: number): Promise<void>
}

/** Where the SDK's own warnings go (export failures…); pino's logger fits. */
export interface TelemetryLog {
  warn(message: string): void
  error(message: string): void
}

/**
 * Starts exporting traces when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`) is set in
 * `env`; otherwise sets nothing up and returns undefined. Reads from `env`, not `process.env`:
 * the endpoint (`<endpoint>/v1/traces`, or the traces endpoint as it is), the protocol
 * (`http/protobuf` by default, `http/json`), headers (`OTEL_EXPORTER_OTLP_[TRACES_]HEADERS`),
 * `OTEL_SERVICE_NAME` (over `serviceName`) and `OTEL_SDK_DISABLED`. Other OTEL_* settings
 * (sampler, batch sizes, timeouts) the SDK reads from `process.env` itself.
 * A bad endpoint or protocol throws a ConfigError naming the variable.
 */
export function startTelemetry(
  env: Record<string, string | undefined>,
  serviceName = 'company-data-gateway',
  log?: TelemetryLog,
): Telemetry | undefined {
  const setting = (name: string) => {
    const value = env[name]?.trim()
    return value === '' ? undefined : value
  }
  const endpoint = setting('OTEL_EXPORTER_OTLP_ENDPOINT')
  const tracesEndpoint = setting('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
  if (endpoint === undefined && tracesEndpoint === undefined) return undefined
  if (setting('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined

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

  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({ [ATTR_SERVICE_NAME]: setting('OTEL_SERVICE_NAME') ?? serviceName }),
    ),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  })
  // AsyncLocalStorage context manager (the default) and W3C trace context only.
  provider.register({ propagator: new W3CTraceContextPropagator() })

  let stopped: Promise<void> | undefined
  return {
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
        trace.disable()
        propagation.disable()
        context.disable()
        if (log) diag.disable()
      })()
      return stopped
    },
  }
}

/** What the operation's span collects until it ends; found in the active context. */
interface OperationTrace {
  readonly span: Span
  /** The operation's context: later parts of a streamed result are pulled in it. */
  context: OtelContext
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

const OPERATION = createContextKey('company-data-gateway operation trace')

const operationTrace = (): OperationTrace | undefined =>
  context.active().getValue(OPERATION) as OperationTrace | undefined

const headersGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
}

function record(state: OperationTrace, result: ExecutionResult) {
  for (const error of result.errors ?? []) {
    const code = error.extensions?.code
    if (typeof code === 'string') state.codes.add(code)
  }
  // As the GraphQL spec reads a response: errors and no data at all (refused) or null data.
  if (result.errors?.length && (result.data === undefined || result.data === null)) {
    state.failed = true
  }
}

function end(state: OperationTrace, error?: unknown) {
  if (state.ended) return
  state.ended = true
  const { span } = state
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
  span.end()
}

/** Names the span after the operation the document and params select (`query Traversal`). */
function name(state: OperationTrace, document: DocumentNode, operationName?: string | null) {
  const operation = getOperationAST(document, operationName)
  if (!operation) return
  const type = operation.operation
  state.span.setAttribute(ATTR_GRAPHQL_OPERATION_TYPE, type)
  if (operation.name) {
    state.span.setAttribute(ATTR_GRAPHQL_OPERATION_NAME, operation.name.value)
    state.span.updateName(`${type} ${operation.name.value}`)
  } else state.span.updateName(type)
}

/** The stream, its parts recorded and pulled in the operation's context, the span ended with it. */
function traced<T extends ExecutionResult>(
  source: AsyncIterable<T>,
  state: OperationTrace,
): AsyncIterableIterator<T> {
  const iterator = source[Symbol.asyncIterator]()
  const settle = <R>(step: () => Promise<IteratorResult<T, R>>) =>
    context.with(state.context, step).then(
      (next) => {
        if (next.done) end(state)
        else record(state, next.value)
        return next
      },
      (error: unknown) => {
        end(state, error)
        throw error
      },
    )
  return {
    [Symbol.asyncIterator]() {
      return this
    },
    next: () => settle(() => iterator.next()),
    return: (value?: unknown) =>
      settle(() =>
        iterator.return
          ? iterator.return(value)
          : Promise.resolve({ done: true as const, value: value as T }),
      ),
    throw: (error?: unknown) =>
      settle(() => (iterator.throw ? iterator.throw(error) : Promise.reject(error))),
  }
}

/**
 * The yoga plugin: one SERVER span per GraphQL operation, named `<type> <name>` once its document
 * is parsed (`graphql.operation` until then, and for a document that does not parse), child of
 * the caller's `traceparent` when there is one, else the root of a new trace. Attributes:
 * graphql.operation.name/type, graphql.error.codes (each code once), gateway.request_id,
 * gateway.upstream.calls (upstream spans made in it), gateway.cache.<result> (see
 * recordCacheRead). Status ERROR when the response has errors and no data, or the operation
 * threw. Put it first in the plugin list, so the span covers the other plugins' work and sees
 * their refusals.
 */
export function useOperationTracing(): Plugin {
  return {
    instrumentation: {
      operation({ request }, wrapped) {
        const caller = propagation.extract(context.active(), request.headers, headersGetter)
        const span = trace
          .getTracer(TRACER)
          .startSpan(OPERATION_SPAN, { kind: SpanKind.SERVER }, caller)
        // No provider registered (telemetry off): nothing to trace, nothing to propagate.
        if (!isSpanContextValid(span.spanContext())) return wrapped()
        if (span.isRecording()) span.setAttribute(ATTR_GATEWAY_REQUEST_ID, requestIdOf(request))
        const state: OperationTrace = {
          span,
          context: caller,
          codes: new Set(),
          cache: new Map(),
          upstreamCalls: 0,
          streaming: false,
          failed: false,
          ended: false,
        }
        state.context = trace.setSpan(caller, span).setValue(OPERATION, state)
        const done = () => {
          if (!state.streaming) end(state)
        }
        const fail = (error: unknown) => {
          end(state, error)
          throw error
        }
        let running: ReturnType<typeof wrapped>
        try {
          running = context.with(state.context, wrapped)
        } catch (error) {
          return fail(error)
        }
        if (running === undefined) return done()
        return running.then(done, fail)
      },
    },
    onParse() {
      return ({ result, context: { params } }) => {
        const state = operationTrace()
        if (!state?.span.isRecording() || result === null || result instanceof Error) return
        name(state, result, params?.operationName)
      }
    },
    onExecutionResult({ result, setResult }) {
      const state = operationTrace()
      if (!state || result === undefined) return
      if (isAsyncIterable(result)) {
        state.streaming = true
        setResult(traced(result, state))
      } else record(state, result)
    },
  }
}

/**
 * Wraps one HTTP request sent upstream in a CLIENT span `GET <endpointTemplate>`, child of the
 * active context (the operation's span inside a resolver), and writes its context into `headers`
 * (`traceparent`, and `tracestate` when the caller sent one) before `call` runs: the upstream
 * sees the gateway's span as parent. Attributes set here: url.template, http.request.method,
 * gateway.upstream.attempt (1 for the first request of a read), http.request.resend_count.
 * `call` sets what only it knows, on the span it is given:
 * `span.setAttribute('http.response.status_code', status)` and
 * `span.setAttribute(ATTR_GATEWAY_CACHE, 'miss' | 'bypass' | 'off')`. When `call` throws, the span
 * gets status ERROR, `error.type` (the error's `code`, e.g. UPSTREAM_TIMEOUT, or its class name)
 * and, when the error carries a numeric `status`, http.response.status_code. The span ends when
 * `call` settles. Telemetry off: `call` runs with a no-op span and the headers are left alone.
 */
export function traceUpstreamCall<T>(
  endpointTemplate: string,
  attempt: number,
  headers: Record<string, string>,
  call: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = context.active()
  const span = trace.getTracer(TRACER).startSpan(
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
    parent,
  )
  if (!isSpanContextValid(span.spanContext())) return call(span)
  const state = parent.getValue(OPERATION) as OperationTrace | undefined
  if (state) state.upstreamCalls++
  propagation.inject(trace.setSpan(parent, span), headers)
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
 * Counts one upstream read on the active operation's span by how it was served: call it with
 * each `CacheResult` (hit, miss, stale, shared) the cache reports; the span ends with
 * `gateway.cache.hit: n` and so on. No operation span (telemetry off, outside an operation):
 * nothing happens.
 */
export function recordCacheRead(result: string): void {
  const state = operationTrace()
  if (state) state.cache.set(result, (state.cache.get(result) ?? 0) + 1)
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
