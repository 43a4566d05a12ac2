import type { Read, ReadScope } from '../../../src/upstream/read-scope.js'

/** A read's scope for the stages' unit tests: no end, no deadline, an unlimited budget. */
export function scopeOf(overrides: Partial<ReadScope> = {}): ReadScope {
  return {
    caller: { token: 't' },
    fairnessKey: 'a caller',
    signal: new AbortController().signal,
    deadline: Number.POSITIVE_INFINITY,
    fresh: false,
    startedAt: Date.now(),
    spend: () => true,
    served: () => {},
    ...overrides,
  }
}

/** A read of `GET /v1/lists/{id}` in `scope`, nothing sent yet. */
export function readOf(scope: Partial<ReadScope> = {}, tokenKey = 'token'): Read {
  return {
    scope: scopeOf(scope),
    tokenKey,
    endpoint: 'GET /v1/lists/{id}',
    template: '/v1/lists/{id}',
    readDeadline: Number.POSITIVE_INFINITY,
  }
}
