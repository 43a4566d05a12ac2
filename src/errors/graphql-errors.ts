import { GraphQLError, type GraphQLErrorOptions } from 'graphql'
import { maskError as yogaMaskError } from 'graphql-yoga'
import { ERROR_CODES, type ErrorCode, isRetryable } from './codes.js'

/**
 * Errors get their code where they are born, through these helpers: argument checks
 * (BAD_USER_INPUT, NOT_FOUND), refusals before execution, and upstream failures
 * (src/upstream/errors.ts, whose `extensions` graphql-js copies onto the GraphQL error). Masking
 * only has to keep coded errors as they are and hide everything else.
 */

/** An error with its code, made without a stack (see `withoutStack`). */
export function codedError(
  code: ErrorCode,
  message: string,
  options: GraphQLErrorOptions = {},
): GraphQLError {
  return withoutStack(
    () =>
      new GraphQLError(message, {
        ...options,
        extensions: { retryable: isRetryable(code), ...options.extensions, code },
      }),
  )
}

/** An argument the gateway refuses before any upstream call. */
export function badUserInput(message: string, argument?: string): GraphQLError {
  return codedError('BAD_USER_INPUT', message, {
    extensions: argument === undefined ? {} : { argument },
  })
}

/** Something asked for by identifier that the upstream does not have. */
export function notFound(message: string): GraphQLError {
  return codedError('NOT_FOUND', message)
}

/**
 * A refusal before execution: HTTP 400 to application/graphql-response+json, 200 to
 * application/json (GraphQL over HTTP).
 */
export function refusal(
  code: ErrorCode,
  message: string,
  options: GraphQLErrorOptions = {},
): GraphQLError {
  return codedError(code, message, {
    ...options,
    extensions: { ...options.extensions, http: { status: 400, spec: true } },
  })
}

/** A validation error, as graphql-js's own rules report them. */
export function validationError(message: string, options: GraphQLErrorOptions = {}): GraphQLError {
  return codedError('GRAPHQL_VALIDATION_FAILED', message, options)
}

/** An HTTP-level refusal of yoga's request parsing (413, 400, 401), with headers of its own. */
export function httpError(
  code: ErrorCode,
  status: number,
  message: string,
  headers?: Record<string, string>,
): GraphQLError {
  return codedError(code, message, { extensions: { http: { status, headers } } })
}

/**
 * An error about the caller's request, made without a stack, which would only show the gateway's
 * own frames: capturing and formatting one (graphql-js copies it onto each located error) was
 * most of the CPU of a document whose 18,000 fields were refused, seconds for one request.
 */
function withoutStack<E extends Error>(make: () => E): E {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return make()
  } finally {
    Error.stackTraceLimit = limit
  }
}

/**
 * An error that carries a code was expected; anything else is a bug. A GraphQLError may lack
 * `extensions` (one made by hand or by a library); a thrown value may be no Error at all.
 */
function isCoded(error: unknown): error is GraphQLError {
  return error instanceof GraphQLError && typeof error.extensions?.code === 'string'
}

/**
 * A coded error with `retryable`, which every error carries: those made by graphql-js or yoga
 * (validation, parsing) have their code's.
 */
function withRetryable(error: GraphQLError): GraphQLError {
  if (typeof error.extensions.retryable === 'boolean') return error
  const code = error.extensions.code as ErrorCode
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, retryable: code in ERROR_CODES && isRetryable(code) },
  })
}

/** What a client sees of an unexpected error in production (yoga's own default too). */
export const UNEXPECTED_ERROR = 'Unexpected error.'

/**
 * yoga's maskError hook. A coded error passes unchanged, so yoga neither masks it nor logs it as
 * unexpected. yoga's refusals of a malformed request carry an HTTP status but no code: they are
 * the caller's, BAD_REQUEST with yoga's message. Anything else is a bug of ours (graphql-js's own
 * complaints included): INTERNAL_SERVER_ERROR, its message shown in development only, and yoga
 * logs it at error level with its stack. (yoga's own maskError passes a GraphQLError without an
 * original error through as it is, message and all.)
 */
export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  if (isCoded(error)) return withRetryable(error)
  const located = error instanceof GraphQLError ? error : undefined
  const where = {
    nodes: located?.nodes,
    source: located?.source,
    positions: located?.positions,
    path: located?.path,
  }
  const http = located?.extensions?.http as { status?: number } | undefined
  if (located && http?.status !== undefined && http.status >= 400 && http.status < 500) {
    return codedError('BAD_REQUEST', located.message, { ...where, extensions: { http } })
  }
  const masked = yogaMaskError(error, message, isDev)
  const extensions = masked instanceof GraphQLError ? masked.extensions : {}
  return codedError('INTERNAL_SERVER_ERROR', isDev ? masked.message : message, {
    ...where,
    extensions: { ...extensions },
  })
}
