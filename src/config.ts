import { z } from 'zod'

/** Settings from the environment (contract/runtime.md), checked once at start-up. */

const positive = z.coerce.number().int().positive()
/** Used when GATEWAY_SECRET is unset: fine for development, public, so never for production. */
const DEVELOPMENT_SECRET = 'company-data-gateway development secret'
/** An empty variable counts as unset, as shells and compose files often leave them. */
/** `true` or `false`, as environment variables spell them. */
const flag = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((v) => v === 'true')
const optional = <T>(schema: z.ZodType<T>) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional())

export const settings = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65_535).default(4000),
    HOST: z.string().min(1).default('127.0.0.1'),
    UPSTREAM_URL: optional(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })),
    UPSTREAM_TOKEN: optional(z.string()),
    UPSTREAM_LANGUAGE_HEADER: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name')
      .default('Accept-Language'),
    UPSTREAM_TIMEOUT_MS: positive.default(10_000),
    UPSTREAM_MAX_CONNECTIONS: positive.default(32),
    UPSTREAM_MAX_RESPONSE_BYTES: positive.default(32 * 1024 * 1024),
    MAX_OPERATION_COST: positive.default(1000),
    MAX_RESULT_OBJECTS: positive.default(20_000),
    MAX_DEPTH: positive.default(16),
    MAX_ALIASES: positive.default(30),
    MAX_BODY_BYTES: positive.default(102_400),
    OPERATION_TIMEOUT_MS: positive.default(30_000),
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
    CACHE_TTL_SECONDS: z.coerce.number().int().min(0).default(300),
    CACHE_STALE_SECONDS: z.coerce.number().int().min(0).default(3600),
    CACHE_MAX_BYTES: positive.default(64 * 1024 * 1024),
    REDIS_URL: optional(
      z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }),
    ),
    UPSTREAM_RATE_LIMIT: optional(positive),
    SHUTDOWN_TIMEOUT_MS: positive.default(10_000),
    PERSISTED_DOCUMENTS: optional(z.string().min(1)),
    PERSISTED_DOCUMENTS_ONLY: flag.default(false),
    GRAPHIQL: flag.default(true),
    GATEWAY_SECRET: optional(z.string().min(16, 'must be at least 16 characters')),
    NODE_ENV: z.string().default('development'),
  })
  // The same settings under the names the code uses.
  .transform((e) => ({
    port: e.PORT,
    host: e.HOST,
    /** Unset: main.ts starts the embedded demo upstream. */
    upstreamUrl: e.UPSTREAM_URL,
    upstreamToken: e.UPSTREAM_TOKEN,
    upstreamLanguageHeader: e.UPSTREAM_LANGUAGE_HEADER,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    upstreamMaxConnections: e.UPSTREAM_MAX_CONNECTIONS,
    /** A larger upstream body is a bad response, not an out-of-memory. */
    upstreamMaxResponseBytes: e.UPSTREAM_MAX_RESPONSE_BYTES,
    maxOperationCost: e.MAX_OPERATION_COST,
    /** Objects one response may hold: what the gateway builds costs CPU and memory too. */
    maxResultObjects: e.MAX_RESULT_OBJECTS,
    maxDepth: e.MAX_DEPTH,
    maxAliases: e.MAX_ALIASES,
    maxBodyBytes: e.MAX_BODY_BYTES,
    /** Time one operation may spend on the upstream, waiting for a free connection included. */
    operationTimeoutMs: e.OPERATION_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    /** How long an upstream read is reused across operations; 0: not at all. */
    cacheTtlSeconds: e.CACHE_TTL_SECONDS,
    /** How long past its TTL an entry may answer for a failing upstream (stale-if-error). */
    cacheStaleSeconds: e.CACHE_STALE_SECONDS,
    /** Size cap of the in-process tier. */
    cacheMaxBytes: e.CACHE_MAX_BYTES,
    /** Set: replicas share the cache, the reads in flight and the rate budget. */
    redisUrl: e.REDIS_URL,
    /** Upstream requests per second per upstream token, over every replica on REDIS_URL. */
    upstreamRateLimit: e.UPSTREAM_RATE_LIMIT,
    /** On SIGTERM/SIGINT: the longest the drain may take before the process exits. */
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    /** Path of the persisted-documents manifest (`{ "<id>": "<document>" }`). */
    persistedDocuments: e.PERSISTED_DOCUMENTS,
    /** Only operations of the manifest run. */
    persistedDocumentsOnly: e.PERSISTED_DOCUMENTS_ONLY,
    /** Serve GraphiQL at /graphql to browsers. */
    graphiql: e.GRAPHIQL,
    /** Key of the keyed hashes (Contact IDs); the same on every replica. */
    gatewaySecret: e.GATEWAY_SECRET ?? DEVELOPMENT_SECRET,
    /** main.ts warns when production runs on the development secret. */
    gatewaySecretIsDefault: e.GATEWAY_SECRET === undefined,
    /** Masks unexpected errors and turns off development details. */
    production: e.NODE_ENV === 'production',
  }))

export type Config = z.output<typeof settings>

export class ConfigError extends Error {}

/** Parses the environment; a bad value throws a ConfigError with one line naming the variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = settings.safeParse(env)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const name = String(issue?.path[0] ?? 'environment')
  throw new ConfigError(`Invalid setting ${name}: ${issue?.message ?? 'invalid value'}`)
}
