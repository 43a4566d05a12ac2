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

/** The gateway's tracer, with nothing global (why: docs/observability-decisions.md). */
const TRACER = 'company-data-gateway'

export interface Telemetry {
  /** What the gateway makes its spans with; none when OTEL_SDK_DISABLED=true. */
  readonly tracer: Tracer | undefined
  /** Spans are exported (OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  readonly exporting: boolean
  /** Flushes and stops the exporter, waiting at most `timeoutMs`; never rejects, runs once. */
  shutdown(timeoutMs?: number): Promise<void>
}

/** Where the SDK's own warnings go (export failures…); pino's logger fits. */
interface TelemetryLog {
  warn(message: string): void
  error(message: string): void
}

type Setting = (name: string) => string | undefined

/** The tracer `env` asks for; the SDK reads the other OTEL_* settings from `process.env`. */
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

/** No collector: a caller's sampled `traceparent` is recorded (and dropped) to pass it on. */
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

function logDiagnostics(log: TelemetryLog) {
  const text = (message: string, args: unknown[]) => [message, ...args.map(errorMessage)].join(' ')
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
