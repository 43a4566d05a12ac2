import {
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  isNonNullType,
  type OperationDefinitionNode,
  TypeInfo,
  ValidationContext,
  type VariableNode,
} from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { LRUCache } from 'lru-cache'
import type { Context } from '../context.js'
import { refusal } from '../errors/graphql-errors.js'
import { type Estimate, estimateOperation } from './cost-estimate.js'

/**
 * The upstream budget of an operation (MAX_OPERATION_COST), kept twice: before execution the
 * estimate of ./cost-estimate.ts must fit (variables coerced first, defaults included, so no way of
 * passing a value escapes it), and while it runs every HTTP request sent upstream is drawn from
 * the budget (see Operation in src/context.ts), so a read past it is refused with
 * QUERY_TOO_COSTLY whatever the estimate assumed. When the response is complete the operation
 * ends: nothing more is sent for it. Every response reports `extensions.cost`.
 */

/**
 * `estimate` remembered per document (yoga's parser cache hands the same object back for the
 * same text) and per operation + the shape of its coerced variables: a repeated operation costs
 * nothing to estimate, and documents dropped from the parser cache take their entries with them.
 */
export function rememberEstimates(estimate: typeof estimateOperation): typeof estimate {
  const estimates = new WeakMap<DocumentNode, LRUCache<string, Estimate>>()
  return (schema, document, operation, variables) => {
    let cache = estimates.get(document)
    if (!cache) {
      cache = new LRUCache({ max: 64 })
      estimates.set(document, cache)
    }
    const key = `${operation.name?.value ?? ''}\n${JSON.stringify(variables, costShape)}`
    let estimated = cache.get(key)
    if (estimated === undefined) {
      estimated = estimate(schema, document, operation, variables)
      cache.set(key, estimated)
    }
    return estimated
  }
}

/**
 * What of a variable's value the estimate can depend on (JSON.stringify's replacer): numbers
 * (page sizes), booleans (@skip/@include), null and the length of lists (IDs), but not the text
 * of a string: a company number or cursor is there or not. The operations a client repeats with
 * other companies or cursors then share one estimate.
 */
function costShape(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? '' : value
}

/**
 * The variables of an operation used where a value is required (a non-null argument, `@include`'s
 * `if`), per document and operation. A nullable variable with a default may stand there (the
 * GraphQL spec allows it), and then an explicit `null` for it passes coercion but fails
 * execution with an uncoded error; it is refused up front instead.
 */
function requiredVariables() {
  const known = new WeakMap<OperationDefinitionNode, Map<string, VariableNode>>()
  return (schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode) => {
    let required = known.get(operation)
    if (!required) {
      required = new Map()
      const context = new ValidationContext(schema, document, new TypeInfo(schema), () => {})
      for (const usage of context.getRecursiveVariableUsages(operation)) {
        if (usage.type && isNonNullType(usage.type)) required.set(usage.node.name.value, usage.node)
      }
      known.set(operation, required)
    }
    return required
  }
}

export interface BudgetLimits {
  /** MAX_OPERATION_COST: upstream calls, estimated and drawn from while running. */
  maxOperationCost: number
  /** MAX_RESULT_OBJECTS: objects the response may hold, estimated. */
  maxResultObjects: number
}

export function useOperationBudget(limits: BudgetLimits): Plugin<Context> {
  const estimateOf = rememberEstimates(estimateOperation)
  const variablesOf = coerceVariables()
  const { maxOperationCost: limit } = limits
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const { operation: scope } = args.contextValue as Context
      const operation = getOperationAST(args.document, args.operationName)
      // yoga has refused a document without the operation asked (OPERATION_RESOLUTION_FAILURE).
      if (!operation) return
      const variables = variablesOf(args.schema, args.document, operation, args.variableValues)
      if (variables.errors) {
        scope.end()
        setResultAndStopExecution({ errors: variables.errors })
        return
      }
      const estimate = estimateOf(args.schema, args.document, operation, variables.coerced)
      const cost = () => ({
        estimated: estimate.calls,
        limit,
        upstreamCalls: scope.upstreamCalls,
        cacheHits: scope.cacheHits,
      })
      const tooCostly = tooCostlyMessage(estimate, limits)
      if (tooCostly) {
        scope.end()
        setResultAndStopExecution({
          errors: [refusal('QUERY_TOO_COSTLY', tooCostly, { extensions: { cost: cost() } })],
          extensions: { cost: cost() },
        })
        return
      }
      /** What every response reports: the cost, and stale answers when there were any. */
      const extensions = (result: { extensions?: Record<string, unknown> }) => ({
        ...result.extensions,
        cost: cost(),
        ...(scope.staleReads > 0 ? { cache: { stale: true, staleReads: scope.staleReads } } : {}),
      })
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) {
            // @defer/@stream: the parts run in this operation (its budget), which ends with
            // the last part; that part reports the cost of them all.
            return {
              onNext({ result: part, setResult: setPart }) {
                if ('hasNext' in part && part.hasNext === false) {
                  setPart({ ...part, extensions: extensions(part) })
                }
              },
              onEnd: () => scope.end(),
            }
          }
          // Reads still pending (siblings of a field whose error nulled their parent) are dropped.
          scope.end()
          setResult({ ...result, extensions: extensions(result) })
        },
      }
    },
  }
}

/**
 * An operation's variables coerced (defaults included, so no way of passing a value escapes the
 * estimate), or the BAD_USER_INPUT errors that refuse it: a value that does not coerce, or a
 * null where a value is required (see `requiredVariables`).
 */
function coerceVariables() {
  const requiredOf = requiredVariables()
  return (
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    values: Readonly<Record<string, unknown>> | null | undefined,
  ): { coerced: Record<string, unknown>; errors?: never } | { errors: GraphQLError[] } => {
    const variables = getVariableValues(schema, operation.variableDefinitions ?? [], values ?? {}, {
      maxErrors: 20,
    })
    if (variables.errors) {
      return {
        errors: variables.errors.map((e) =>
          refusal('BAD_USER_INPUT', e.message, { nodes: e.nodes, originalError: undefined }),
        ),
      }
    }
    const nulls = [...requiredOf(schema, document, operation)].filter(
      ([name]) => variables.coerced[name] === null,
    )
    if (nulls.length === 0) return { coerced: variables.coerced }
    return {
      errors: nulls.map(([name, node]) =>
        refusal('BAD_USER_INPUT', `Variable "$${name}" is null where a value is required.`, {
          nodes: node,
        }),
      ),
    }
  }
}

/** Why the estimate refuses an operation (QUERY_TOO_COSTLY); undefined when it fits. */
function tooCostlyMessage({ calls, objects }: Estimate, limits: BudgetLimits): string | undefined {
  const { maxOperationCost: limit, maxResultObjects } = limits
  if (calls > limit) {
    return `This operation could cause up to ${calls} upstream calls, more than the ${limit} allowed: ask for smaller pages (first/last) or fewer nested connections.`
  }
  if (objects > maxResultObjects) {
    return `This operation could return up to ${objects} objects, more than the ${maxResultObjects} allowed: ask for smaller pages (first/last), fewer aliases or fewer IDs.`
  }
  return undefined
}
