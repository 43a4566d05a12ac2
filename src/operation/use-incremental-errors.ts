import type { GraphQLError } from 'graphql'
import { isAsyncIterable, type Plugin } from 'graphql-yoga'
import type { ResultPart } from './result-stream.js'

/**
 * The errors of a @defer/@stream answer as the answer without them has them:
 * - masked as yoga masks the rest: yoga's masking (envelop's useMaskedErrors) maps a result's
 *   top-level `errors` only, so a bug inside a `@defer` fragment went out uncoded;
 * - each once: the executor runs a deferred fragment's fields in full, those also selected
 *   elsewhere again, and reports their errors again. An error sent before in the same answer (the
 *   same path, message and code) is not sent again; the data, sent again too, the client merges.
 */
export function useIncrementalErrors(mask: (error: GraphQLError) => Error): Plugin {
  return {
    onExecute: () => ({
      onExecuteDone: ({ result }) => {
        if (!isAsyncIterable(result)) return undefined
        const sent = new Set<string>()
        let changed = false
        /** `part` with its errors masked, only those not sent before, no `errors` if none is left. */
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
