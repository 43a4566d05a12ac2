import { DiagLogLevel, diag, type Tracer } from '@opentelemetry/api'
import { parseKeyPairsIntoRecord } from '@opentelemetry/core'
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources'
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
} from '@opentelemetry/sdk-trace-node'
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions'
import { ConfigError } from '../config.js'
import { errorMessage } from './operation-trace.js'

/**
 * Traces (contract/runtime.md, OTEL_EXPORTER_OTLP_ENDPOINT and `traceparent`), with the
 * OpenTelemetry SDK:
 *
 * - `startTelemetry(env)` (here): the tracer the gateway uses. With OTEL_EXPORTER_OTLP_ENDPOINT
 *   set, its provider's BatchSpanProcessor exports over OTLP/HTTP, protobuf unless
 *   OTEL_EXPORTER_OTLP_PROTOCOL (or ..._TRACES_PROTOCOL) is `http/json`. Unset, the provider
 *   exports nothing and records nothing, but still makes span ids: every upstream call carries a
 *   `traceparent`.
 * - `useOperationTracing(tracer)` (src/operation/use-operation-tracing.ts): yoga plugin, one
 *   SERVER span per GraphQL operation, continuing the caller's `traceparent` (or starting a new
 *   trace); its state is the OperationTrace of ./operation-trace.ts, which the context factory
 *   hands to the upstream client with the rest of the read's scope.
 * - `observeUpstreamRequest(...)` (./upstream-spans.ts): one CLIENT span `GET <path template>`
 *   around each HTTP request sent upstream, written into its headers as `traceparent`;
 *   `recordCacheRead(trace, result)` counts on the operation's span the reads served without an
 *   HTTP request of their own.
 *
 * Decisions (the reasons for each are in docs/observability-decisions.md):
 *
 * - Nothing global: the provider is not registered, and an operation's trace travels to its
 *   upstream calls explicitly (request → context → read scope), not through AsyncLocalStorage.
 * - No undici (nor http) auto-instrumentation: the gateway's own span around each upstream
 *   request is the single source.
 * - One span per HTTP request sent upstream (each attempt, retries included), never per read; a
 *   read the cache answers is counted on the operation's span (`gateway.cache.<result>`).
 * - The operation span wraps yoga's `instrumentation.operation` hook and ends when its result is
 *   ready to be sent, or with the last part of a streamed result.
 * - Sampling: a caller's sampled `traceparent` is respected; without a collector nothing else is
 *   recorded, and without a caller's trace the SDK's default (always on) applies when exporting.
 * - No query text, variables, URLs or tokens in any span.
 */

const TRACER = 'company-data-gateway'

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

/** An OTEL_* setting of `env`, undefined when unset or blank. */
type Setting = (name: string) => string | undefined

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
  const setting: Setting = (name) => {
    const value = env[name]?.trim()
    return value === '' ? undefined : value
  }
  if (setting('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') {
    return { tracer: undefined, exporting: false, shutdown: () => Promise.resolve() }
  }
  const exporter = exporterOf(setting)
  if (!exporter) return propagateOnly()
  if (log) logDiagnostics(log)
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({ [ATTR_SERVICE_NAME]: setting('OTEL_SERVICE_NAME') ?? serviceName }),
    ),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  })
  return {
    tracer: provider.getTracer(TRACER),
    exporting: true,
    shutdown: shutdownOnce(provider, log),
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

/** The OTLP/HTTP exporter the settings ask for; none without an endpoint. */
function exporterOf(setting: Setting): JsonTraceExporter | ProtobufTraceExporter | undefined {
  const endpoint = setting('OTEL_EXPORTER_OTLP_ENDPOINT')
  const tracesEndpoint = setting('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
  if (endpoint === undefined && tracesEndpoint === undefined) return undefined

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
  if (protocol === 'http/protobuf') return new ProtobufTraceExporter({ url, headers })
  if (protocol === 'http/json') return new JsonTraceExporter({ url, headers })
  throw new ConfigError(
    `Invalid setting ${protocolVariable}: expected http/protobuf or http/json (grpc is not supported)`,
  )
}

/** The SDK's own warnings and errors (export failures…) to `log`. */
function logDiagnostics(log: TelemetryLog) {
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

/** Telemetry's `shutdown` for `provider`. */
function shutdownOnce(provider: BasicTracerProvider, log: TelemetryLog | undefined) {
  let stopped: Promise<void> | undefined
  return (timeoutMs?: number) => {
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
  }
}
