import type { Endpoint } from './endpoint.js'
import { UpstreamError, type UpstreamErrorCode } from './errors.js'

/** What an upstream answer means: a non-2xx status as an error, a 2xx body parsed and checked. */

/** The error a non-2xx answer is, with the upstream's Retry-After when it sent one. */
export function statusError(
  status: number,
  retryAfter: string | string[] | undefined,
  endpoint: string,
): UpstreamError {
  const { code, message } = meaningOfStatus(status)
  return new UpstreamError(code, endpoint, message, {
    status,
    retryAfterSeconds: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
  })
}

/** The code a non-2xx status maps to, and what it means to the client. */
function meaningOfStatus(status: number): { code: UpstreamErrorCode; message: string } {
  switch (status) {
    case 401:
      return { code: 'UNAUTHENTICATED', message: 'the upstream refused the credentials (401)' }
    case 403:
      return { code: 'FORBIDDEN', message: 'access forbidden by the upstream (403)' }
    case 404:
      return { code: 'NOT_FOUND', message: 'not found (404)' }
    case 429:
      return { code: 'RATE_LIMITED', message: 'rate limited by the upstream (429)' }
    default:
      return { code: 'UPSTREAM_ERROR', message: `the upstream answered ${status}` }
  }
}

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const at = Date.parse(value)
  if (Number.isNaN(at)) return undefined
  return Math.max(0, Math.ceil((at - Date.now()) / 1000))
}

/** JSON-parses and validates a 2xx body; the error names the offending path, never the body. */
export function parseBody<T>(text: string, endpoint: Endpoint<unknown, T>, status: number): T {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new UpstreamError('UPSTREAM_BAD_RESPONSE', endpoint.name, 'response body is not JSON', {
      status,
    })
  }
  const parsed = endpoint.response.safeParse(json)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue === undefined || issue.path.length === 0 ? '(root)' : issue.path.join('.')
  throw new UpstreamError(
    'UPSTREAM_BAD_RESPONSE',
    endpoint.name,
    `response does not match the documented shape at ${where}: ${issue?.message ?? 'invalid'}`,
    { status },
  )
}
