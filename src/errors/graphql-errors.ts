import { GraphQLError, type GraphQLErrorOptions } from 'graphql'
import { maskError as yogaMaskError } from 'graphql-yoga'
import { ERROR_CODES, type ErrorCode, isRetryable } from './codes.js'

// Errors get their code where they are born, through these helpers (and src/upstream/errors.ts).

/**
 * An error with its code, made without a stack: only the gateway's own frames, and graphql-js
 * copies it onto each located error (seconds for a document of many refused fields).
 */
export function codedError(
  code: ErrorCode,
  message: string,
  options: GraphQLErrorOptions = {},
): GraphQLError {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return new GraphQLError(message, {
      ...options,
      extensions: { retryable: isRetryable(code), ...options.extensions, code },
    })
  } finally {
    Error.stackTraceLimit = limit
  }
}

/** An argument the gateway refuses before any upstream call. */
export function badUserInput(message: string, argument?: string): GraphQLError {
  return codedError('BAD_USER_INPUT', message, {
    extensions: argument === undefined ? {} : { argument },
  })
}

export function notFound(message: string): GraphQLError {
  return codedError('NOT_FOUND', message)
}

/** A refusal before execution: 400 to application/graphql-response+json, 200 to application/json */
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

/** A coded error answered before any GraphQL runs, in GraphQL's `errors` shape all the same. */
export function errorResponse(
  Response: typeof globalThis.Response,
  status: number,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(
    JSON.stringify({
      errors: [{ message, extensions: { code, retryable: isRetryable(code) } }],
    }),
    {
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    },
  )
}

/** What a client sees of an unexpected error in production (yoga's own default too). */
export const UNEXPECTED_ERROR = 'Unexpected error.'

/**
 * yoga's maskError hook: a coded error passes, unlogged; yoga's refusals of a malformed request
 * (an HTTP status, no code) are BAD_REQUEST; anything else is a bug of ours, INTERNAL_SERVER_ERROR.
 */
export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  const located = error instanceof GraphQLError ? error : undefined
  const where = {
    nodes: located?.nodes,
    source: located?.source,
    positions: located?.positions,
    path: located?.path,
  }
  const code = located?.extensions?.code
  if (located && typeof code === 'string') {
    if (typeof located.extensions.retryable === 'boolean') return located
    return new GraphQLError(located.message, {
      ...where,
      originalError: located.originalError,
      extensions: {
        ...located.extensions,
        retryable: code in ERROR_CODES && isRetryable(code as ErrorCode),
      },
    })
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
