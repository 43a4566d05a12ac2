import type { Turn, UpstreamRateLimiter } from '../../src/upstream/rate-limit.js'

/** The rate limiter's tests, in process and across replicas. */

/** No deadline. */
export const far = Number.POSITIVE_INFINITY

/** `count` turns of `caller` with `token`, asked one after the other in this process. */
export function takeMany(
  limiter: UpstreamRateLimiter,
  token: string,
  caller: string,
  count: number,
): Turn[] {
  return Array.from({ length: count }, () => limiter.takeLocally(token, caller, far))
}

/** A turn to send now, and one to ask again for in `waitMs`. */
export const go: Turn = { kind: 'go' }
export const later = (waitMs: number): Turn => ({ kind: 'later', waitMs })
