import { expect } from 'vitest'
import { RateLimitWait, type UpstreamRateLimiter } from '../../src/upstream/rate-limit.js'

/** The rate limiter's tests, in process and across replicas. */

/** No deadline. */
export const far = Number.POSITIVE_INFINITY

/** Reserves `count` turns one after the other and returns their waits. */
export async function reserveMany(limiter: UpstreamRateLimiter, key: string, count: number) {
  const waits: number[] = []
  for (let i = 0; i < count; i++) waits.push(await limiter.reserve(key, far))
  return waits
}

/** The RateLimitWait a reservation is refused with. */
export async function refusal(promise: Promise<unknown>): Promise<RateLimitWait> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(RateLimitWait)
  return error as RateLimitWait
}
