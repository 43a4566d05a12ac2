import type { GraphQLError } from 'graphql'
import { isAsyncIterable, type Plugin } from 'graphql-yoga'
import type { ResultPart } from './result-stream.js'

/**
 * Each error of a @defer/@stream answer once, as the answer without them has it. The executor
 * runs a deferred fragment's fields in full, those also selected elsewhere (in the first payload,
 * in another deferred fragment) again, and reports their errors again: one refused argument
 * showed as two or three errors at its path. An error sent before in the same answer (the same
 * path, message and code) is not sent again; the data, sent again too, the client merges.
 */
export function useIncrementalErrorsOnce(): Plugin {
  return {
    onExecute: () => ({
      onExecuteDone: ({ result }) => {
        if (!isAsyncIterable(result)) return undefined
        const sent = new Set<string>()
        let dropped = false
        /** `part` with only the errors not sent before, and without `errors` if none is left. */
        const once = <T extends { errors?: readonly GraphQLError[] }>(part: T): T => {
          if (!part.errors) return part
          const { errors, ...rest } = part
          const unsent = errors.filter((error) => {
            const key = JSON.stringify([error.path, error.message, error.extensions?.code])
            if (sent.has(key)) {
              dropped = true
              return false
            }
            sent.add(key)
            return true
          })
          return (unsent.length > 0 ? { ...rest, errors: unsent } : rest) as T
        }
        return {
          onNext: ({ result: next, setResult }) => {
            dropped = false
            const part = once(next as ResultPart)
            const incremental = part.incremental?.map(once)
            if (dropped) setResult({ ...part, incremental } as typeof next)
          },
        }
      },
    }),
  }
}
