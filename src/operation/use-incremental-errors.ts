import type { GraphQLError } from 'graphql'
import { isAsyncIterable, type Plugin } from 'graphql-yoga'
import type { ResultPart } from './result-stream.js'

/**
 * The errors of a @defer/@stream answer masked (yoga masks only a result's top-level `errors`),
 * and each sent once: the executor runs a deferred fragment's fields again, those also selected
 * elsewhere too, and reports their errors again.
 */
export function useIncrementalErrors(mask: (error: GraphQLError) => Error): Plugin {
  return {
    onExecute: () => ({
      onExecuteDone: ({ result }) => {
        if (!isAsyncIterable(result)) return undefined
        const sent = new Set<string>()
        let changed = false
        const once = <T extends { errors?: readonly GraphQLError[] }>(part: T): T => {
          if (!part.errors) return part
          changed = true
          const { errors, ...rest } = part
          const unsent = errors.map(mask).filter((error) => {
            const key = JSON.stringify([
              (error as GraphQLError).path,
              error.message,
              (error as GraphQLError).extensions?.code,
            ])
            if (sent.has(key)) return false
            sent.add(key)
            return true
          })
          return (unsent.length > 0 ? { ...rest, errors: unsent } : rest) as T
        }
        return {
          onNext: ({ result: next, setResult }) => {
            changed = false
            const part = once(next as ResultPart)
            const incremental = part.incremental?.map(once)
            if (changed) setResult({ ...part, incremental } as typeof next)
          },
        }
      },
    }),
  }
}
