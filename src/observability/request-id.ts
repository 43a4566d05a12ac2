import { randomUUID } from 'node:crypto'

/** `X-Request-Id` (contract/runtime.md): the caller's own when valid, else a new UUID. */
const VALID = /^[A-Za-z0-9._-]{1,128}$/
const ids = new WeakMap<Request, string>()

export function requestIdOf(request: Request): string {
  let id = ids.get(request)
  if (id === undefined) {
    const given = request.headers.get('x-request-id')
    id = given !== null && VALID.test(given) ? given : randomUUID()
    ids.set(request, id)
  }
  return id
}
