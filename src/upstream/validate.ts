import type { Endpoint } from './endpoint.js'
import { UpstreamError } from './errors.js'

/** Stage 6: a 2xx body JSON-parsed and checked against the endpoint's zod shape; a failure names
 *  the offending path, never the body. */
export function parseBody<T>(text: string, endpoint: Endpoint<unknown, T>, status: number): T {
  const bad = (why: string) =>
    new UpstreamError('UPSTREAM_BAD_RESPONSE', endpoint.name, why, { status })
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw bad('response body is not JSON')
  }
  const parsed = endpoint.response.safeParse(json)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue === undefined || issue.path.length === 0 ? '(root)' : issue.path.join('.')
  throw bad(
    `response does not match the documented shape at ${where}: ${issue?.message ?? 'invalid'}`,
  )
}
