import { createHash, timingSafeEqual } from 'node:crypto'

/** The header a supergraph router sends SUBGRAPH_ROUTER_SECRET in (docs/federation.md). */
export const ROUTER_SECRET_HEADER = 'x-router-secret'

const digest = (text: string) => createHash('sha256').update(text).digest()

/**
 * Tells the operator's router apart from direct callers: its requests carry the shared secret.
 * Compared as digests, in constant time, so the answer's timing tells nothing of the secret.
 */
export function routerTraffic(secret: string | undefined) {
  if (secret === undefined) return undefined
  const expected = digest(secret)
  return (request: Request): boolean => {
    const given = request.headers.get(ROUTER_SECRET_HEADER)
    return given !== null && timingSafeEqual(digest(given), expected)
  }
}
