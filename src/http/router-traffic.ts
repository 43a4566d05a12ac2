import { createHash, timingSafeEqual } from 'node:crypto'

const ROUTER_SECRET_HEADER = 'x-router-secret'

const digest = (text: string) => createHash('sha256').update(text).digest()

/** Whether a request is the router's (SUBGRAPH_ROUTER_SECRET), compared in constant time. */
export function routerTraffic(secret: string | undefined) {
  if (secret === undefined) return undefined
  const expected = digest(secret)
  return (request: Request): boolean => {
    const given = request.headers.get(ROUTER_SECRET_HEADER)
    return given !== null && timingSafeEqual(digest(given), expected)
  }
}
