import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { keyedHash } from '../../src/domain/keyed-hash.js'
import type { CacheResult, ReadScope } from '../../src/upstream/read-scope.js'

/** What the gateway hashes upstream tokens with in the client tests. */
export const testTokenKey = (token: string) => keyedHash('a test secret', ['upstream token', token])

/**
 * An operation's scope for calling the upstream client directly: the demo token, no end, no
 * deadline, a budget (unlimited unless given) that counts what it gives, and the cache results
 * it was told.
 */
export function readScope(
  overrides: Partial<ReadScope> & { budget?: number } = {},
): ReadScope & { spent: number; results: CacheResult[] } {
  const { budget = Number.POSITIVE_INFINITY, ...rest } = overrides
  const scope = {
    caller: { token: DEMO_TOKEN },
    fairnessKey: 'a caller',
    signal: new AbortController().signal,
    deadline: Number.POSITIVE_INFINITY,
    fresh: false,
    startedAt: Date.now(),
    spent: 0,
    results: [] as CacheResult[],
    spend() {
      if (scope.spent >= budget) return false
      scope.spent++
      return true
    },
    served(result: CacheResult) {
      scope.results.push(result)
    },
    ...rest,
  }
  return scope
}
