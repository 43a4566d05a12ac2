import type { ExecutionResult } from 'graphql'

/** One part of a streamed (@defer/@stream) result, or a whole single result. */
export type ResultPart = ExecutionResult & {
  incremental?: readonly { errors?: ExecutionResult['errors'] }[]
}

/** The error codes of a result or of one part of a stream, its deferred payloads' included. */
export function errorCodesOf(part: ResultPart): string[] {
  const errors = [
    ...(part.errors ?? []),
    ...(part.incremental ?? []).flatMap((i) => i.errors ?? []),
  ]
  return errors.flatMap(({ extensions }) =>
    typeof extensions?.code === 'string' ? [extensions.code] : [],
  )
}

/**
 * `source` as it is, each part shown to `onPart` as it passes and `onEnd` told once when the
 * stream ends: its last part sent, returned early (the client went away) or failed (`error`).
 */
export function observeStream<T>(
  source: AsyncIterable<T>,
  onPart: (part: T) => void,
  onEnd: (error?: unknown) => void,
): AsyncIterableIterator<T> {
  const iterator = source[Symbol.asyncIterator]()
  let ended = false
  const end = (error?: unknown) => {
    if (ended) return
    ended = true
    onEnd(error)
  }
  const settle = <R>(step: () => Promise<IteratorResult<T, R>>) =>
    step().then(
      (next) => {
        if (next.done) end()
        else onPart(next.value)
        return next
      },
      (error: unknown) => {
        end(error)
        throw error
      },
    )
  return {
    [Symbol.asyncIterator]() {
      return this
    },
    next: () => settle(() => iterator.next()),
    return: (value?: unknown) =>
      settle(() => iterator.return?.(value) ?? Promise.resolve({ done: true, value: value as T })),
    throw: (error?: unknown) => settle(() => iterator.throw?.(error) ?? Promise.reject(error)),
  }
}
