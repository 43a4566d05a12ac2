import { randomUUID } from 'node:crypto'

/**
 * `X-Request-Id` (contract/runtime.md): the caller's own when it is 1–128 characters of
 * `A-Z a-z 0-9 . _ -`, else a new UUID; written on every log line of the request and sent
 * upstream with each of its calls, so one request can be followed from the caller's log to the
 * upstream's.
 */

const VALID = /^[A-Za-z0-9._-]{1,128}$/
const ids = new WeakMap<Request, string>()

/** The request's id, made on first ask. */
export function requestIdOf(request: Request): string {
  let id = ids.get(request)
  if (id === undefined) {
    const given = request.headers.get('x-request-id')
    id = given !== null && VALID.test(given) ? given : randomUUID()
    ids.set(request, id)
  }
  return id
}
