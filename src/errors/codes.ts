/** The one catalogue of error codes (contract/runtime.md); docs/errors.md is generated from it. */
export const ERROR_CODES = {
  BAD_USER_INPUT:
    'An argument or variable refused before any upstream call. Invalid on its own (a company number of the wrong shape or checksum, `first`/`last` outside 0..500 or given together, `minScore` outside 0..1, a malformed cursor or global ID, a contacts search or filter over its bounds, an `@stream` initialCount below 0, a variable that does not coerce): the whole operation, before it runs, no `data`. An item of `nodes(ids)` or a well-formed cursor of another connection: null at its own path.',
  NOT_FOUND:
    'The upstream has nothing under that identifier (upstream 404), or nothing is served at that HTTP path.',
  UNAUTHENTICATED:
    'No token to call the upstream with, or the upstream answered 401; where the gateway verifies callers (`AUTH_API_KEYS_FILE`, `AUTH_JWKS_URL`), a missing or refused credential: HTTP 401 with `WWW-Authenticate: Bearer`, before any upstream call.',
  AUTH_UNAVAILABLE:
    "A caller's JWT could not be checked: its key is not in the issuer's key set the gateway holds (`AUTH_JWKS_URL`), if any, and the set could not be fetched (HTTP 503): not the caller's fault, try again.",
  ORIGIN_NOT_ALLOWED:
    'A browser sent the request for a page of an origin `CORS_ORIGINS` does not allow (its `Origin`, or `Sec-Fetch-Site: cross-site`/`same-site`): HTTP 403, before any upstream call.',
  FORBIDDEN: 'The upstream answered 403.',
  RATE_LIMITED:
    "The upstream answered 429 after retries, or no turn came in time (`UPSTREAM_RATE_LIMIT`, `CALLER_RATE_LIMIT`, or the pause an upstream 429's Retry-After asked for); `retryAfterSeconds`: the upstream's Retry-After, or the seconds until the turn.",
  UPSTREAM_TIMEOUT:
    'The upstream did not answer within `UPSTREAM_TIMEOUT_MS` (or the operation ran out of `OPERATION_TIMEOUT_MS`).',
  UPSTREAM_ERROR:
    "The upstream answered 5xx after retries or an unexpected status, or could not be reached; or the endpoint's circuit is open after repeated failures (`UPSTREAM_CIRCUIT_FAILURES`): nothing was sent, `retryAfterSeconds` says when it is tried again (as it does on the failure that opened it); `retryAfterSeconds` also when a 5xx came with Retry-After.",
  UPSTREAM_BAD_RESPONSE:
    'The upstream answered 2xx with a body that is not JSON or not of the documented shape; the message names the offending path, never the body.',
  QUERY_TOO_COSTLY:
    'The operation would cause more upstream requests (or build more objects) than `MAX_OPERATION_COST` (`MAX_RESULT_OBJECTS`) allow: refused before execution, or, once the budget is spent while it runs, each further read.',
  PERSISTED_QUERY_NOT_FOUND: 'A `documentId` (or Apollo hash) the manifest does not hold.',
  PERSISTED_QUERY_ONLY:
    'A query text where `PERSISTED_DOCUMENTS_ONLY` allows persisted documents only.',
  GRAPHQL_VALIDATION_FAILED:
    'The document is not valid against the schema, is not a query (the gateway is read-only), or is over a shape limit (depth, aliases, directives, tokens).',
  GRAPHQL_PARSE_FAILED: 'The document is not GraphQL.',
  OPERATION_RESOLUTION_FAILURE:
    'The document has no operation of the given `operationName`, or several operations and no name to choose one.',
  BAD_REQUEST:
    'The HTTP request is not a well-formed GraphQL request (a body that is not one JSON object, a parameter of the wrong type or unknown, no query, both a query and a documentId, a Content-Length that is not a number): HTTP 400 whatever the Accept; 405 for a method other than GET and POST, 415 for a POST body of a Content-Type the gateway does not read.',
  REQUEST_ENTITY_TOO_LARGE: 'The request body is over `MAX_BODY_BYTES` (HTTP 413).',
  NOT_ACCEPTABLE:
    'The `Accept` header admits none of the types the gateway answers in, or an operation that `@defer`s or `@stream`s asks with one that cannot carry parts: HTTP 406, found before the operation runs.',
  INTERNAL_SERVER_ERROR:
    'A fault of the gateway itself; masked as `Unexpected error.` in production and logged with its stack.',
} as const satisfies Record<string, string>

export type ErrorCode = keyof typeof ERROR_CODES

/** The codes whose errors may succeed when tried again, unless the error knows better. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'AUTH_UNAVAILABLE',
  'RATE_LIMITED',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_ERROR',
])

export const isRetryable = (code: ErrorCode): boolean => RETRYABLE.has(code)
