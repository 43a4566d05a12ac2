import { type ErrorCode, isRetryable } from './codes.js'

/**
 * A coded error answered at the request edge, before any GraphQL runs (404 for an unknown path,
 * 406 for an Accept the gateway cannot serve): the body has GraphQL's `errors` shape, so clients
 * read it as they read any other error.
 */
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
