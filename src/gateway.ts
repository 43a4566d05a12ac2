import { useDeferStream } from '@graphql-yoga/plugin-defer-stream'
import { renderGraphiQL } from '@graphql-yoga/render-graphiql'
import { getIntrospectionQuery } from 'graphql'
import { createYoga, type YogaServerInstance } from 'graphql-yoga'
import type { Config } from './config.js'
import { type Context, contextFactory } from './context.js'
import { keyedHash } from './domain/keyed-hash.js'
import { maskError, UNEXPECTED_ERROR } from './errors/graphql-errors.js'
import { credentialVerifier } from './http/caller-identity.js'
import { corsOptions, originAllowed } from './http/cors.js'
import { useDrain } from './http/drain.js'
import { graphiqlOptions } from './http/graphiql.js'
import { routerTraffic } from './http/router-traffic.js'
import { useAcceptCheck } from './http/use-accept-check.js'
import { useBodyLimit } from './http/use-body-limit.js'
import { callers } from './http/use-caller-identity.js'
import { useCrossOriginCheck } from './http/use-cross-origin-check.js'
import { useKnownPaths } from './http/use-known-paths.js'
import { useMetricsEndpoint } from './http/use-metrics-endpoint.js'
import { usePersistedDocuments } from './http/use-persisted-documents.js'
import { useReadiness } from './http/use-readiness.js'
import { useRequestId } from './http/use-request-id.js'
import { useRequestParams } from './http/use-request-params.js'
import { SCHEMA_PATH, useServedSchema } from './http/use-served-schema.js'
import { yogaLogger } from './http/yoga-logger.js'
import type { Logger } from './observability/logger.js'
import { GatewayMetrics } from './observability/metrics.js'
import { propagateOnly, type Telemetry } from './observability/tracing-sdk.js'
import { operationShapeLimits } from './operation/shape-limits.js'
import { useAdmission } from './operation/use-admission.js'
import { useExecutionCancellation } from './operation/use-execution-cancellation.js'
import { useIncrementalErrors } from './operation/use-incremental-errors.js'
import { useOperationLog } from './operation/use-operation-log.js'
import { useOperationTracing } from './operation/use-operation-tracing.js'
import { WARM_UP } from './operation/warm-up.js'
import { schema } from './schema/index.js'
import { subgraph } from './schema/subgraph.js'
import { ReadCache } from './upstream/cache.js'
import { UpstreamClient, type UpstreamClientOptions } from './upstream/client.js'
import { RedisLink } from './upstream/redis.js'

export type GatewayConfig = Omit<Config, 'port' | 'host' | 'logLevel' | 'upstreamUrl'> & {
  upstreamUrl: string
}

/**
 * Builds the gateway: the yoga server and the one upstream client it owns; no port (src/main.ts
 * serves it, tests call `yoga.fetch`). Without `telemetry` no span is exported, but every
 * upstream call still carries a `traceparent`.
 */
export function createGateway(
  config: GatewayConfig,
  logger?: Logger,
  telemetry: Telemetry = propagateOnly(),
) {
  const metrics = new GatewayMetrics()
  // First: a bad keys file stops start-up before any connection is opened.
  const verify = credentialVerifier(config, logger)
  const tokenKey = (token: string) => keyedHash(config.gatewaySecret, ['upstream token', token])
  const caller = callers({
    verify,
    serviceToken: config.upstreamToken !== undefined,
    hash: (parts, length) => keyedHash(config.gatewaySecret, parts, length),
    tokenKey,
  })
  const upstream = createUpstream(config, logger, metrics, {
    tokenKey,
    onTokenAccepted: caller.tokenAccepted,
  })
  const { client } = upstream
  let draining = false
  const graphqlEndpoint = '/graphql'
  const served = config.subgraph ? subgraph() : undefined
  const yoga = createYoga<Partial<typeof WARM_UP>, Context>({
    // SUBGRAPH=true: the same schema with Apollo Federation's additions (docs/federation.md).
    schema: served?.schema ?? schema,
    context: contextFactory(client, { ...config, callerId: caller.idOf }),
    graphqlEndpoint,
    landingPage: false,
    // GRAPHIQL=false: no page; a browser's GET gets a GraphQL-over-HTTP answer like any other.
    graphiql: config.graphiql && graphiqlOptions(config.upstreamToken, verify !== undefined),
    // GraphiQL's assets are served from the package, so it works with no internet access.
    renderGraphiQL,
    // MAX_BODY_BYTES: useBodyLimit below, cheaper than yoga's own check.
    maxRequestBodySize: false,
    // One operation per request: a batch would multiply the upstream work past the cost check.
    batching: false,
    // No file uploads in the schema: a multipart body would only be parsing work for nothing.
    multipart: false,
    cors: corsOptions(config.corsOrigins, config.corsMaxAgeSeconds),
    // In the order each acts within a hook; yoga runs hooks by phase (onRequest, onRequestParse,
    // onParse, onValidate, onExecute, onResultProcess, onResponse), whatever the list.
    plugins: [
      // First, so its span covers the other plugins and sees their refusals.
      useOperationTracing(telemetry.tracer),
      useRequestId(),
      useKnownPaths([graphqlEndpoint, SCHEMA_PATH, '/health', '/ready', '/metrics']),
      useMetricsEndpoint(metrics),
      // schema.graphql for code generators (applied directives included); the subgraph's SDL.
      useServedSchema(served && (() => served.sdl)),
      useOperationLog(
        graphqlEndpoint,
        logger,
        metrics,
        caller.idOf,
        routerTraffic(config.routerSecret),
      ),
      // /health (liveness) is yoga's own; ready: not draining, and the upstream takes our token.
      useReadiness(() => !draining && client.ready()),
      useDrain(() => draining),
      useAcceptCheck(graphqlEndpoint, config.graphiql),
      // Before the credential and the body: a page that may not call costs nothing more.
      useCrossOriginCheck(originAllowed(config.corsOrigins)),
      // Before the body is read: a caller that cannot be verified costs nothing more.
      ...(caller.plugin ? [caller.plugin] : []),
      // documentId / Apollo hash → the manifest's document (read now; none without a manifest).
      ...usePersistedDocuments(config),
      ...operationShapeLimits(config),
      // Variables, arguments, Accept for parts and the cost: refused before anything runs.
      useAdmission(config),
      // A client that goes away stops the execution of its operation, not only its reads.
      useExecutionCancellation(),
      // @defer and @stream over multipart/mixed and text/event-stream.
      useDeferStream(),
      useIncrementalErrors((error) => maskError(error, UNEXPECTED_ERROR, !config.production)),
      // After every request parser is set (yoga's own come first).
      useRequestParams(config.persistedDocuments !== undefined),
      useBodyLimit(config.maxBodyBytes),
    ],
    maskedErrors: { maskError, errorMessage: UNEXPECTED_ERROR, isDev: !config.production },
    logging: logger ? yogaLogger(logger) : false,
  })
  return {
    yoga,
    client,
    metrics,
    /** Runs the pipeline once before the first caller (see warmUp). */
    warm: () => warmUp(yoga, graphqlEndpoint),
    /** From now on /ready answers 503 and every response closes its connection. */
    drain: () => {
      draining = true
    },
    /** Releases the upstream connections, the cache and Redis; once, however often called. */
    close: upstream.close,
  }
}

/** The one upstream client, with the cache of reads and the one Redis connection it uses. */
function createUpstream(
  config: GatewayConfig,
  logger: Logger | undefined,
  metrics: GatewayMetrics,
  tokens: Pick<UpstreamClientOptions, 'tokenKey' | 'onTokenAccepted'>,
) {
  const redis = config.redisUrl
    ? new RedisLink(config.redisUrl, logger, () => metrics.redisFailures.inc())
    : undefined
  const cache =
    config.cacheTtlSeconds > 0
      ? new ReadCache({
          ttlSeconds: config.cacheTtlSeconds,
          staleSeconds: config.cacheStaleSeconds,
          maxBytes: config.cacheMaxBytes,
          redis,
        })
      : undefined
  const circuit = config.upstreamCircuitFailures > 0
  const client = new UpstreamClient({
    baseUrl: config.upstreamUrl,
    serviceToken: config.upstreamToken,
    languageHeader: config.upstreamLanguageHeader,
    timeoutMs: config.upstreamTimeoutMs,
    maxConnections: config.upstreamMaxConnections,
    maxResponseBytes: config.upstreamMaxResponseBytes,
    logger,
    ...tokens,
    cache,
    redis,
    rate: { perToken: config.upstreamRateLimit, perCaller: config.callerRateLimit },
    circuit: circuit
      ? {
          failures: config.upstreamCircuitFailures,
          openMs: config.upstreamCircuitOpenSeconds * 1000,
        }
      : undefined,
    metrics,
  })
  if (circuit) metrics.watchCircuits(() => client.resilience.openByEndpoint())
  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= (async () => {
      await client.close()
      // The reads it ended give their locks back first.
      await new Promise((resolve) => setImmediate(resolve))
      await redis?.close()
    })()
    return closing
  }
  return { client, close }
}

/**
 * Runs GraphiQL's introspection query and a refused operation through the whole pipeline, so that
 * the first callers after a start do not pay for compiling that code. No upstream call; not in
 * the operation log, metrics or traces (src/operation/warm-up.ts).
 */
async function warmUp(
  yoga: YogaServerInstance<Partial<typeof WARM_UP>, Context>,
  graphqlEndpoint: string,
) {
  for (const query of [getIntrospectionQuery({ descriptions: true }), '{ nope }']) {
    const response = await yoga.fetch(
      `http://warm-up${graphqlEndpoint}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query }),
      },
      WARM_UP,
    )
    await response.text()
  }
}
