import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type SelectionSetNode,
  valueFromASTUntyped,
} from 'graphql'
import type { Plugin } from 'graphql-yoga'
import type { Context } from './context.js'
import { DEFAULT_PAGE, MAX_PAGE } from './paging.js'

/**
 * Before execution, an upper bound of the upstream calls an operation can cause: each field that
 * reads the upstream counts its calls, times the pages or IDs above it. An operation over the
 * budget is refused with QUERY_TOO_COSTLY and no upstream call; every response reports
 * `extensions.cost` with the estimate and the calls actually made.
 */

/** Shareholders or participations assumed per company when their children cost calls. */
export const RELATIONSHIP_FAN_OUT = 10

type Args = Record<string, unknown>

interface Rule {
  /** Upstream calls the field itself can cause. */
  calls: (args: Args) => number
  /** How many times its children run: the page size, the number of IDs … */
  fanOut?: (args: Args) => number
  /** Whether Companies reached through it come with their name and place ('carried'). */
  companies?: 'carried' | 'bare'
}

const pageSize = (args: Args) => {
  const size = args.first ?? args.last ?? DEFAULT_PAGE
  return typeof size === 'number' && size >= 0 && size <= MAX_PAGE ? size : MAX_PAGE
}
/** `last` alone needs the total first: up to two calls. */
const pageCalls = (args: Args) =>
  args.last != null && args.before == null && args.first == null ? 2 : 1
const paged: Rule = { calls: pageCalls, fanOut: pageSize }
const one = () => 1
const idCount = (args: Args) => (Array.isArray(args.ids) ? args.ids.length : 1)

const RULES: Record<string, Rule> = {
  'Query.lists': paged,
  'Query.list': { calls: one },
  'Query.company': { calls: () => 0, companies: 'bare' },
  'Query.node': { calls: one, companies: 'bare' },
  'Query.nodes': { calls: idCount, fanOut: idCount, companies: 'bare' },
  'List.companies': { ...paged, companies: 'carried' },
  'List.contacts': paged,
  'Company.financials': paged,
  'Company.contacts': paged,
  'Company.lookalikes': { calls: one, fanOut: pageSize, companies: 'bare' },
  'Company.shareholders': { calls: one, fanOut: () => RELATIONSHIP_FAN_OUT, companies: 'carried' },
  'Company.participations': {
    calls: one,
    fanOut: () => RELATIONSHIP_FAN_OUT,
    companies: 'carried',
  },
  'Contact.company': { calls: () => 0, companies: 'carried' },
  'Relationship.company': { calls: () => 0, companies: 'carried' },
}

/** Company fields that read the company's own resources, and so learn its name on the way. */
const COMPANY_READS = new Set([
  'financials',
  'contacts',
  'lookalikes',
  'shareholders',
  'participations',
])
const RELATIONSHIP_FIELDS = new Set(['shareholders', 'participations'])

export function estimateUpstreamCalls(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>()
  let operation: SelectionSetNode | undefined
  let rootType: GraphQLNamedType | null | undefined
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition)
    if (
      definition.kind === Kind.OPERATION_DEFINITION &&
      (operationName == null || definition.name?.value === operationName)
    ) {
      operation = definition.selectionSet
      rootType = schema.getRootType(definition.operation)
    }
  }
  if (!operation || !rootType) return 0

  /** The fields a selection set selects on `type`, through fragments. */
  const fieldsOf = (
    set: SelectionSetNode,
    type: GraphQLNamedType,
  ): [FieldNode, GraphQLNamedType][] =>
    set.selections.flatMap((selection): [FieldNode, GraphQLNamedType][] => {
      if (selection.kind === Kind.FIELD) return [[selection, type]]
      const fragment =
        selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value)
      if (!fragment) return []
      const condition = fragment.typeCondition && schema.getType(fragment.typeCondition.name.value)
      return fieldsOf(fragment.selectionSet, condition ?? type)
    })

  const cost = (
    set: SelectionSetNode,
    type: GraphQLNamedType,
    companies: 'carried' | 'bare',
  ): number => {
    const fields = fieldsOf(set, type)
    let total = 0
    let relationshipsCounted = false
    for (const [field, parent] of fields) {
      const name = field.name.value
      if (!isObjectType(parent) && !isInterfaceType(parent)) continue
      const definition = parent.getFields()[name]
      if (!definition) continue
      const rule = RULES[`${parent.name}.${name}`]
      const args: Args = {}
      for (const arg of field.arguments ?? []) {
        args[arg.name.value] = valueFromASTUntyped(arg.value, variables ?? undefined)
      }
      let calls = rule?.calls(args) ?? 0
      // Shareholders and participations come from one relationships call.
      if (RELATIONSHIP_FIELDS.has(name) && parent.name === 'Company') {
        if (relationshipsCounted) calls = 0
        relationshipsCounted = true
      }
      const children = field.selectionSet
        ? cost(field.selectionSet, getNamedType(definition.type), rule?.companies ?? companies)
        : 0
      total += calls + (rule?.fanOut?.(args) ?? 1) * children
    }
    // A company's name or place costs a call only when nothing else carries it.
    if (type.name === 'Company' && companies === 'bare') {
      const names = fields.filter(([f]) => f.name.value === 'name' || f.name.value === 'place')
      if (names.length > 0 && !fields.some(([f]) => COMPANY_READS.has(f.name.value))) total += 1
    }
    return total
  }

  return cost(operation, rootType, 'bare')
}

/** yoga plugin: refuses operations over the budget and reports the cost of every operation. */
export function useUpstreamCost(maxCost: number): Plugin<Context> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const estimated = estimateUpstreamCalls(
        args.schema,
        args.document,
        args.operationName,
        args.variableValues,
      )
      const stats = (args.contextValue as Context).stats
      const report = () => ({ estimated, limit: maxCost, upstreamCalls: stats.upstreamCalls })
      if (estimated > maxCost) {
        setResultAndStopExecution({
          errors: [
            new GraphQLError(
              `This operation could cause up to ${estimated} upstream calls, more than the ${maxCost} allowed: ask for smaller pages (first/last) or fewer nested connections.`,
              { extensions: { code: 'QUERY_TOO_COSTLY', cost: report() } },
            ),
          ],
          extensions: { cost: report() },
        })
        return
      }
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return
          setResult({ ...result, extensions: { ...result.extensions, cost: report() } })
        },
      }
    },
  }
}
