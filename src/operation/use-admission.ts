import {
  type FieldNode,
  type GraphQLError,
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  Kind,
  print,
} from 'graphql'
import type { Plugin, YogaInitialContext } from 'graphql-yoga'
import type { Context } from '../context.js'
import { httpError, refusal } from '../errors/graphql-errors.js'
import { checksOf } from '../schema/argument-checks.js'
import { type Analysis, analysisCache } from './analysis.js'

/**
 * Admission: the one place that judges an operation's variables, arguments, parts and cost
 * before it runs, refusing with no `data` and no upstream call. Admitted, its analysis goes into
 * the context, and it ends when its response is complete. Every response reports `extensions.cost`.
 */
export function useAdmission(limits: {
  maxOperationCost: number
  maxResultObjects: number
}): Plugin<Context> {
  const analysisOf = analysisCache()
  const { maxOperationCost: limit, maxResultObjects } = limits
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as Context & YogaInitialContext
      const scope = context.operation
      const operation = getOperationAST(args.document, args.operationName)
      // src/http/use-request-params.ts has refused a document without the operation asked.
      if (!operation) return
      const refuse = (errors: readonly GraphQLError[], extensions?: Record<string, unknown>) => {
        scope.end()
        setResultAndStopExecution({ errors, ...(extensions ? { extensions } : {}) })
      }
      // Coerced as execution will (defaults included), so no way of passing a value escapes the
      // analysis. A null the arguments cannot take the analysis refuses: it evaluates them all.
      const variables = getVariableValues(
        args.schema,
        operation.variableDefinitions ?? [],
        args.variableValues ?? {},
        { maxErrors: 20 },
      )
      if (variables.errors) return refuse(variables.errors.map(withoutValue))
      const analysis = analysisOf(args.schema, args.document, operation, variables.coerced)
      const cost = () => ({
        estimated: analysis.calls,
        limit,
        upstreamCalls: scope.upstreamCalls,
        cacheHits: scope.cacheHits,
      })
      // Arguments execution could not even evaluate come first: they are not checked further.
      const refusals = analysis.refusals.length
        ? [...analysis.refusals]
        : argumentProblems(analysis, variables.coerced)
      if (analysis.inParts && !acceptsParts(context.request)) {
        // Else yoga would run it in full, reads and all, then answer 406 with an empty body.
        refusals.push(
          httpError(
            'NOT_ACCEPTABLE',
            406,
            `@defer and @stream answer in parts: send Accept: ${INCREMENTAL_MEDIA_TYPES.join(' or ')}, or leave them out.`,
          ),
        )
      }
      const { calls, objects } = analysis
      const tooCostly = (message: string) =>
        refusals.push(refusal('QUERY_TOO_COSTLY', message, { extensions: { cost: cost() } }))
      if (refusals.length === 0 && calls > limit) {
        tooCostly(
          `This operation could cause up to ${calls} upstream calls, more than the ${limit} allowed: ask for smaller pages (first/last) or fewer nested connections.`,
        )
      } else if (refusals.length === 0 && objects > maxResultObjects) {
        tooCostly(
          `This operation could return up to ${objects} objects, more than the ${maxResultObjects} allowed: ask for smaller pages (first/last), fewer aliases or fewer IDs.`,
        )
      }
      if (refusals.length > 0) return refuse(refusals, { cost: cost() })
      context.plan = analysis
      const extensions = (result: { extensions?: Record<string, unknown> }) => ({
        ...result.extensions,
        cost: cost(),
        ...(scope.staleReads > 0 ? { cache: { stale: true, staleReads: scope.staleReads } } : {}),
      })
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) {
            // @defer/@stream: the operation ends with the last part, which reports the whole cost.
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

/** Checked arguments judged with this request's values: one error per problem, all its places. */
function argumentProblems(analysis: Analysis, variables: Record<string, unknown>): GraphQLError[] {
  const found = new Map<string, { argument: string; message: string; nodes: FieldNode[] }>()
  for (const { field, node } of analysis.checked) {
    const args = getArgumentValues(field, node, variables)
    for (const check of checksOf(field) ?? []) {
      const problem = check(args)
      if (!problem) continue
      const key = `${field.name}\n${problem.argument}\n${problem.message}`
      const same = found.get(key)
      if (same) same.nodes.push(node)
      else found.set(key, { ...problem, nodes: [node] })
    }
  }
  return [...found.values()].map(({ argument, message, nodes }) =>
    refusal('BAD_USER_INPUT', message, { nodes, extensions: { argument } }),
  )
}

/** Media types an answer in parts (@defer, @stream) can be sent in. */
export const INCREMENTAL_MEDIA_TYPES = ['multipart/mixed', 'text/event-stream']

/** src/http/use-accept-check.ts has made Accept the list of types the gateway may answer in. */
const acceptsParts = (request: Request) =>
  (request.headers.get('accept') ?? '').split(', ').some((t) => INCREMENTAL_MEDIA_TYPES.includes(t))

/** A variable that does not coerce, said without its value: nothing a caller sends is echoed. */
function withoutValue(error: GraphQLError): GraphQLError {
  const definition = error.nodes?.[0]
  const named =
    definition?.kind === Kind.VARIABLE_DEFINITION
      ? `Variable "$${definition.variable.name.value}" of type ${print(definition.type)}`
      : 'A variable'
  return refusal('BAD_USER_INPUT', `${named} got a value that does not coerce to its type.`, {
    nodes: error.nodes,
  })
}
