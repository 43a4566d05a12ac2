import { z } from 'zod'

/**
 * Settings from the environment (contract/runtime.md), checked once at start-up. Each one's
 * meaning is written here, once: `npm run docs` renders docs/configuration.md's table from it.
 */

const positive = z.coerce.number().int().positive()
const nonNegative = z.coerce.number().int().min(0)
/** Used when GATEWAY_SECRET is unset: fine for development, public, so never for production. */
const DEVELOPMENT_SECRET = 'company-data-gateway development secret'
/** `true` or `false`, as environment variables spell them. */
const flag = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((v) => v === 'true')
/** An empty variable counts as unset, as shells and compose files often leave them. */
const optional = <T>(schema: z.ZodType<T>) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional())

/** `scheme://host[:port]`, as a browser sends it in `Origin`. */
function isOrigin(text: string): boolean {
  return URL.canParse(text) && new URL(text).origin === text
}

/** The variables as they are named in the environment, each with its default and meaning. */
export const environment = z.object({
  PORT: nonNegative.max(65_535).default(4000).describe('port to listen on'),
  HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('interface to bind (`0.0.0.0` in containers)'),
  UPSTREAM_URL: optional(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })).describe(
    "the REST service's base URL; paths `/v1/...` are appended. Unset: the embedded demo upstream is started and used",
  ),
  UPSTREAM_TOKEN: optional(z.string()).describe(
    "bearer token for every upstream call. Unset: the caller's own `Authorization: Bearer …` is forwarded unchanged. Demo mode needs neither",
  ),
  UPSTREAM_LANGUAGE_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name')
    .default('Accept-Language')
    .describe('name of the upstream header that selects the response language'),
  UPSTREAM_TIMEOUT_MS: positive
    .default(10_000)
    .describe(
      'budget of one upstream read from the moment it is sent: connect, headers, the whole body and its retries',
    ),
  UPSTREAM_MAX_CONNECTIONS: positive
    .default(32)
    .describe(
      'concurrent upstream requests per process; more wait their turn, shared fairly between callers',
    ),
  UPSTREAM_MAX_RESPONSE_BYTES: positive
    .default(32 * 1024 * 1024)
    .describe(
      'largest upstream body accepted (32 MiB); a larger one is `UPSTREAM_BAD_RESPONSE`, not an out-of-memory',
    ),
  MAX_OPERATION_COST: positive
    .default(1000)
    .describe(
      'most upstream requests one operation may cause: its estimate must fit before it runs, and each request sent while it runs (retries included) draws from it',
    ),
  OPERATION_TIMEOUT_MS: positive
    .default(30_000)
    .describe(
      'time one operation may spend on the upstream; a read still waiting for a connection then fails with `UPSTREAM_TIMEOUT` unsent',
    ),
  MAX_RESULT_OBJECTS: positive
    .default(20_000)
    .describe(
      'most objects (connections, list items, nested objects) one response may hold, as estimated before it runs: what the gateway builds costs CPU and memory even when the upstream reads are few',
    ),
  MAX_DEPTH: positive
    .default(16)
    .describe("deepest field nesting of an operation (Relay's edges/node count)"),
  MAX_ALIASES: positive.default(30).describe('aliases per operation'),
  MAX_BODY_BYTES: positive.default(102_400).describe('largest request body (HTTP 413 above it)'),
  CACHE_TTL_SECONDS: nonNegative
    .default(300)
    .describe(
      "how long an upstream read is reused across operations (and replicas); `0` turns the cache off (reads are still made once per operation). An upstream's `Cache-Control: max-age`/`no-store` wins",
    ),
  CACHE_STALE_SECONDS: nonNegative
    .default(3600)
    .describe(
      'how long past its TTL an entry may still answer when the upstream fails (5xx, 429, connection failure, timeout; never 401/403); the response then says `extensions.cache.stale`. `0`: a failing upstream fails the field',
    ),
  CACHE_MAX_BYTES: positive
    .default(64 * 1024 * 1024)
    .describe(
      'size of the in-process cache tier (64 MiB; least recently used goes first); with Redis it is the fast tier in front of it',
    ),
  REDIS_URL: optional(
    z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }),
  ).describe(
    "`redis://host:6379/0`: replicas share one cache, join each other's reads in flight and share one `UPSTREAM_RATE_LIMIT` and `CALLER_RATE_LIMIT` budget, over one connection each. Redis down, slow or frozen: served without it (a request waits at most one 200 ms Redis timeout, then Redis is left alone until a background PING is answered), logged once per outage",
  ),
  UPSTREAM_RATE_LIMIT: optional(positive).describe(
    "most upstream requests per second per upstream token, over every replica on the same Redis (a token bucket holding one second's worth); requests above it wait their turn within their `UPSTREAM_TIMEOUT_MS`, or fail `RATE_LIMITED`. Turns go round robin between callers: a caller holds at most one reserved turn per replica, whatever its backlog. Without Redis the budget is per process. Unset: no limit",
  ),
  CALLER_RATE_LIMIT: optional(positive).describe(
    "most upstream requests per second one caller may cause (whatever the token), over every replica on the same Redis (a bucket holding one second's worth); requests above it wait their turn like `UPSTREAM_RATE_LIMIT`'s. The caller is the one the fair share counts (`Authorization` token, else address). Without Redis the budget is per process. Unset: no limit",
  ),
  UPSTREAM_CIRCUIT_FAILURES: nonNegative
    .default(5)
    .describe(
      "reads of one endpoint with one upstream token that fail in a row for good (5xx, no connection or a timeout, after their retries) on one replica before that replica's circuit of the endpoint opens for that token: for `UPSTREAM_CIRCUIT_OPEN_SECONDS` its reads are answered from stale cache entries or refused at once with a retryable `UPSTREAM_ERROR` (`retryAfterSeconds`: until it is tried again); then one read goes through, and its answer closes the circuit. Each replica keeps its own circuits. `0`: no circuits",
    ),
  UPSTREAM_CIRCUIT_OPEN_SECONDS: positive
    .default(10)
    .describe('how long an open circuit (`UPSTREAM_CIRCUIT_FAILURES`) sends nothing upstream'),
  GATEWAY_SECRET: optional(z.string().min(16, 'must be at least 16 characters')).describe(
    'key of the keyed hashes in Contact IDs and cache keys; at least 16 characters; the same on every replica; changing it changes every Contact ID and empties the shared cache. Unset: a public development value, warned about when `NODE_ENV=production`',
  ),
  LOG_LEVEL: z
    .enum(['debug', 'info', 'warn', 'error'])
    .default('info')
    .describe(
      '`debug`, `info`, `warn` or `error`; logs are JSON lines; `debug` adds one line per upstream request',
    ),
  NODE_ENV: z
    .string()
    .default('development')
    .describe('`production` masks unexpected errors (`Unexpected error.`)'),
  SHUTDOWN_TIMEOUT_MS: positive
    .default(10_000)
    .describe(
      'on SIGTERM/SIGINT: the longest the drain may take before the process exits (docs/operations.md)',
    ),
  PERSISTED_DOCUMENTS: optional(z.string().min(1)).describe(
    'path of a persisted-documents manifest `{ "<id>": "<document>" }` (relay-compiler `persistConfig`, GraphQL Code Generator `persistedDocuments`); requests may then send `documentId` or Apollo\'s `extensions.persistedQuery.sha256Hash`',
  ),
  PERSISTED_DOCUMENTS_ONLY: flag
    .default(false)
    .describe(
      "`true`: only the manifest's operations run; anything else is `PERSISTED_QUERY_ONLY`, with no upstream call",
    ),
  GRAPHIQL: flag.default(true).describe('`false`: `/graphql` serves no GraphiQL page'),
  SUBGRAPH: flag
    .default(false)
    .describe(
      '`true`: also serve the schema as an Apollo Federation v2 subgraph (`_service`, `_entities`; `Company @key(fields: "country number")`, `List @key(fields: "listId")`), whose SDL is the repository\'s `schema.subgraph.graphql`, served at `/graphql/schema.graphql` in that mode (docs/federation.md); `false`: the served schema has neither',
    ),
  SUBGRAPH_ROUTER_SECRET: optional(z.string().min(16, 'must be at least 16 characters')).describe(
    'with `SUBGRAPH=true`: a secret shared with the supergraph router, which sends it in `X-Router-Secret`; requests that carry it are router traffic: `PERSISTED_DOCUMENTS_ONLY` does not apply to them (the router enforces it: its operations are in no manifest) and their log line says `router: true`; every other limit does. Needed with `SUBGRAPH=true` and `PERSISTED_DOCUMENTS_ONLY=true`',
  ),
  AUTH_API_KEYS_FILE: optional(z.string().min(1)).describe(
    'with `UPSTREAM_TOKEN`: path of a JSON file `{ "<caller name>": "<SHA-256 hex of the key>" }`, read at start; a caller sends `Authorization: Bearer <key>` and is known by its name; keys are never stored in clear (docs/callers.md)',
  ),
  AUTH_JWKS_URL: optional(
    z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  ).describe(
    "with `UPSTREAM_TOKEN`: the issuer's JSON Web Key Set; callers' bearer tokens are then JWTs (RS256, ES256) checked against it (fetched, cached, fetched again for an unknown `kid` and every 10 minutes, kept while the issuer is out), the caller is their `sub`. Needs `AUTH_ISSUER` and `AUTH_AUDIENCE`; may be combined with `AUTH_API_KEYS_FILE`",
  ),
  AUTH_ISSUER: optional(z.string().min(1)).describe(
    'with `AUTH_JWKS_URL`: the `iss` every caller JWT must carry',
  ),
  AUTH_AUDIENCE: optional(z.string().min(1)).describe(
    'with `AUTH_JWKS_URL`: the `aud` every caller JWT must name',
  ),
  CORS_ORIGINS: optional(
    z
      .string()
      .transform((list) => list.split(',').map((origin) => origin.trim()))
      .refine(
        (origins) => origins.join() === '*' || origins.every(isOrigin),
        'must be `*` or comma-separated origins such as `https://app.example.com`',
      )
      .transform((origins) => (origins.join() === '*' ? ('*' as const) : origins)),
  ).describe(
    'comma-separated browser origins allowed to call (`https://app.example.com`), or `*` for any; never with credentials. Unset: any origin in development and with the demo upstream; none with `NODE_ENV=production` and an `UPSTREAM_URL`',
  ),
  CORS_MAX_AGE_SECONDS: nonNegative
    .default(600)
    .describe(
      "how long a browser may reuse a CORS preflight's answer (`Access-Control-Max-Age`), so that a page's requests do not each pay a preflight; browsers cap it (Chromium at 7200). `0`: no `Access-Control-Max-Age`, so browsers keep a preflight 5 s at most",
    ),
})

/**
 * Settings under the OpenTelemetry SDK's own names: read and checked by startTelemetry
 * (src/observability/tracing-sdk.ts), not by `environment`; all unset by default.
 */
export const telemetrySettings = {
  OTEL_EXPORTER_OTLP_ENDPOINT:
    'set: traces (a span per operation and per upstream request) are exported over OTLP/HTTP to `<endpoint>/v1/traces` (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: to that URL as it is). Unset: nothing is recorded or exported, but every upstream request still carries a `traceparent`',
  OTEL_EXPORTER_OTLP_PROTOCOL:
    '`http/protobuf` (when unset) or `http/json`; `grpc` is not supported. `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` wins over it',
  OTEL_EXPORTER_OTLP_HEADERS:
    'headers sent with every export, `key=value` pairs separated by commas (`OTEL_EXPORTER_OTLP_TRACES_HEADERS` added over them)',
  OTEL_SERVICE_NAME: 'the service name on every span; unset: `company-data-gateway`',
  OTEL_SDK_DISABLED: '`true`: no spans at all, and no `traceparent` sent upstream',
} as const satisfies Record<string, string>

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Lowercase<Head>}${Capitalize<CamelCase<Tail>>}`
  : Lowercase<S>
/** `{ UPSTREAM_URL: v }` as `{ upstreamUrl: v }`. */
function camelCased<T extends Record<string, unknown>>(env: T) {
  const camel = (name: string) =>
    name.toLowerCase().replace(/_(.)/g, (_, c: string) => c.toUpperCase())
  const entries = Object.entries(env).map(([name, value]) => [camel(name), value])
  return Object.fromEntries(entries) as { [K in keyof T & string as CamelCase<K>]: T[K] }
}

const settings = environment
  .superRefine((e, context) => {
    const issue = (path: string, message: string) =>
      context.addIssue({ code: 'custom', path: [path], message })
    // A JWT is only as good as the checks of its issuer and audience: all three or none.
    const jwt = ['AUTH_JWKS_URL', 'AUTH_ISSUER', 'AUTH_AUDIENCE'] as const
    const missing = jwt.find((name) => e[name] === undefined)
    if (missing && jwt.some((name) => e[name] !== undefined)) {
      issue(
        missing,
        'AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE go together: set all three or none',
      )
    }
    if (e.SUBGRAPH_ROUTER_SECRET !== undefined && !e.SUBGRAPH) {
      issue('SUBGRAPH_ROUTER_SECRET', 'is only read with SUBGRAPH=true')
    }
    // The router's operations are in no manifest: without the secret none of them could run.
    if (e.SUBGRAPH && e.PERSISTED_DOCUMENTS_ONLY && e.SUBGRAPH_ROUTER_SECRET === undefined) {
      issue(
        'SUBGRAPH_ROUTER_SECRET',
        "must be set with SUBGRAPH=true and PERSISTED_DOCUMENTS_ONLY=true: the router's operations are in no manifest",
      )
    }
  })
  // The same settings under the names the code uses: `UPSTREAM_TIMEOUT_MS` is `upstreamTimeoutMs`.
  .transform(
    ({ NODE_ENV, SUBGRAPH_ROUTER_SECRET, AUTH_JWKS_URL, AUTH_ISSUER, AUTH_AUDIENCE, ...e }) => ({
      ...camelCased(e),
      routerSecret: SUBGRAPH_ROUTER_SECRET,
      authJwt:
        AUTH_JWKS_URL && AUTH_ISSUER && AUTH_AUDIENCE
          ? { jwksUrl: AUTH_JWKS_URL, issuer: AUTH_ISSUER, audience: AUTH_AUDIENCE }
          : undefined,
      /** `*`: any origin; a list: those; empty: none (no CORS headers at all). */
      corsOrigins:
        e.CORS_ORIGINS ?? (NODE_ENV === 'production' && e.UPSTREAM_URL ? [] : ('*' as const)),
      gatewaySecret: e.GATEWAY_SECRET ?? DEVELOPMENT_SECRET,
      /** main.ts warns when production runs on the development secret. */
      gatewaySecretIsDefault: e.GATEWAY_SECRET === undefined,
      /** Masks unexpected errors and turns off development details. */
      production: NODE_ENV === 'production',
    }),
  )

export type Config = z.output<typeof settings>

export class ConfigError extends Error {}

/** What start-up warns about: settings fine for development that production should not run on. */
export function startWarnings(config: Config): string[] {
  if (!config.production) return []
  const warnings: string[] = []
  if (config.gatewaySecretIsDefault) {
    warnings.push(
      'GATEWAY_SECRET is unset: Contact IDs are keyed with the public development secret; set the same secret on every replica',
    )
  }
  if (config.upstreamToken !== undefined && !config.authApiKeysFile && !config.authJwt) {
    warnings.push(
      'UPSTREAM_TOKEN is set and no caller is verified (neither AUTH_API_KEYS_FILE nor AUTH_JWKS_URL): anyone who reaches the gateway spends that token, and callers are told apart by their address only',
    )
  }
  return warnings
}

/** Parses the environment; a bad value throws a ConfigError with one line naming the variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = settings.safeParse(env)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const name = String(issue?.path[0] ?? 'environment')
  throw new ConfigError(`Invalid setting ${name}: ${issue?.message ?? 'invalid value'}`)
}
