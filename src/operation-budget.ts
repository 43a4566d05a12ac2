import {
  type DocumentNode,
  GraphQLError,
  type GraphQLErrorOptions,
  getVariableValues,
} from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { LRUCache } from 'lru-cache'
import type { Context } from './context.js'
import { estimateUpstreamCalls, operationOf } from './cost.js'

/**
 * The upstream budget of an operation (MAX_OPERATION_COST), kept twice: before execution the
 * estimate of src/cost.ts must fit (variables coerced first, defaults included, so no way of
 * passing a value escapes it), and while it runs every HTTP request sent upstream is drawn from
 * the budget (see Operation in src/context.ts), so a read past it is refused with
 * QUERY_TOO_COSTLY whatever the estimate assumed. When the response is complete the operation
 * ends: nothing more is sent for it. Every response reports `extensions.cost`.
 */

/** A refusal before execution: 400 for application/graphql-response+json, 200 for JSON. */
function refusal(message: string, code: string, options: GraphQLErrorOptions = {}) {
  return new GraphQLError(message, {
    ...options,
    extensions: { ...options.extensions, code, http: { status: 400, spec: true } },
  })
}

/**
 * `estimate` remembered per document (yoga's parser cache hands the same object back for the
 * same text) and per operation + coerced variables: a repeated operation costs nothing to
 * estimate, and documents dropped from the parser cache take their entries with them.
 */
export function rememberEstimates(estimate: typeof estimateUpstreamCalls): typeof estimate {
  const estimates = new WeakMap<DocumentNode, LRUCache<string, number>>()
  return (schema, document, operation, variables) => {
    let cache = estimates.get(document)
    if (!cache) {
      cache = new LRUCache({ max: 64 })
      estimates.set(document, cache)
    }
    const key = `${operation.name?.value ?? ''}\n${JSON.stringify(variables)}`
    let estimated = cache.get(key)
    if (estimated === undefined) {
      estimated = estimate(schema, document, operation, variables)
      cache.set(key, estimated)
    }
    return estimated
  }
}

export function useOperationBudget(maxCost: number): Plugin<Context> {
  const estimateOf = rememberEstimates(estimateUpstreamCalls)
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const { operation: scope } = args.contextValue as Context
      const operation = operationOf(args.document, args.operationName)
      // yoga has refused a document without the operation asked (OPERATION_RESOLUTION_FAILURE).
      if (!operation) return
      const variables = getVariableValues(
        args.schema,
        operation.variableDefinitions ?? [],
        args.variableValues ?? {},
        { maxErrors: 20 },
      )
      if (variables.errors) {
        scope.end()
        setResultAndStopExecution({
          errors: variables.errors.map((e) =>
            refusal(e.message, 'BAD_USER_INPUT', { nodes: e.nodes, originalError: undefined }),
          ),
        })
        return
      }
      const estimated = estimateOf(args.schema, args.document, operation, variables.coerced)
      const cost = () => ({ estimated, limit: maxCost, upstreamCalls: scope.upstreamCalls })
      if (estimated > maxCost) {
        scope.end()
        setResultAndStopExecution({
          errors: [
            refusal(
              `This operation could cause up to ${estimated} upstream calls, more than the ${maxCost} allowed: ask for smaller pages (first/last) or fewer nested connections.`,
              'QUERY_TOO_COSTLY',
              { extensions: { cost: cost() } },
            ),
          ],
          extensions: { cost: cost() },
        })
        return
      }
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return
          // Reads still pending (siblings of a field whose error nulled their parent) are dropped.
          scope.end()
          setResult({ ...result, extensions: { ...result.extensions, cost: cost() } })
        },
      }
    },
  }
}
