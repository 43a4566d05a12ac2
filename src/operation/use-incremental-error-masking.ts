import type { GraphQLError } from 'graphql'
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga'
import type { ResultPart } from './result-stream.js'

/**
 * Masks the errors of deferred and streamed payloads as yoga masks the others. yoga's masking
 * (envelop's useMaskedErrors) maps a result's top-level `errors` only, so a bug inside a
 * `@defer` fragment went out uncoded, its message shown in production too.
 */
export function useIncrementalErrorMasking(mask: (error: GraphQLError) => Error): Plugin {
  return {
    onExecute: () => ({
      onExecuteDone: (payload) =>
        handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
          const { incremental } = result as ResultPart
          if (!incremental?.some((part) => part.errors)) return
          setResult({
            ...result,
            incremental: incremental.map((part) =>
              part.errors ? { ...part, errors: part.errors.map(mask) } : part,
            ),
          } as typeof result)
        }),
    }),
  }
}
