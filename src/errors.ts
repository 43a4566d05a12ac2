import { GraphQLError } from 'graphql'
import { maskError as yogaMaskError } from 'graphql-yoga'
import { UpstreamError } from './upstream/errors.js'

/**
 * The one place errors get their GraphQL shape. Every error a client sees carries
 * `extensions.code`: BAD_USER_INPUT for arguments refused before any upstream call, the upstream
 * codes of src/upstream/errors.ts, and yoga's own codes for unparsable or invalid operations.
 */

/** An argument the gateway refuses before any upstream call. */
export function badUserInput(message: string, argument?: string): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: 'BAD_USER_INPUT', ...(argument === undefined ? {} : { argument }) },
  })
}

/** yoga's maskError hook: upstream failures keep their code and message; anything unexpected
 *  is masked as yoga does (its message, code INTERNAL_SERVER_ERROR). */
export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  const original = error instanceof GraphQLError ? error.originalError : error
  if (original instanceof UpstreamError && error instanceof GraphQLError) {
    return new GraphQLError(original.message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions: {
        code: original.code,
        ...(original.retryAfterSeconds === undefined
          ? {}
          : { retryAfterSeconds: original.retryAfterSeconds }),
      },
    })
  }
  return yogaMaskError(error, message, isDev)
}
