import { type ErrorCode, isRetryable } from './codes.js'

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
