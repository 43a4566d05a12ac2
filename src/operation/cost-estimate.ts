import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  type InlineFragmentNode,
  isAbstractType,
  isObjectType,
  Kind,
  type NamedTypeNode,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql'
import { collectFields } from 'graphql/execution/collectFields.js'
import { type CompanyKnowledge, costOfField } from '../schema/upstream-cost.js'

/**
 * The upstream cost of an operation, estimated before it runs. Each field that reads the upstream
 * declares its cost where it is defined (`extensions: upstreamCost({...})` in src/schema/), and
 * the estimate adds them up, times the pages or IDs above each. src/operation-budget.ts refuses
 * an operation whose estimate is over MAX_OPERATION_COST and, while it runs, refuses every read
 * past that budget, so the estimate never has to be exact: it has to be close and cheap.
 */

type Args = Record<string, unknown>

/** What an operation can cost: upstream calls, and objects in its response. */
export interface Estimate {
  /** Upstream calls it can cause. */
  calls: number
  /** Objects its response can hold: every object a field returns, times the pages above it. */
  objects: number
}

/**
 * What an operation can cost, given its coerced variables (defaults applied). Fields are
 * collected as graphql-js executes them (fragments merged, @skip/@include applied), and each
 * selection's cost is computed once per type and what is known of its companies, so the work is
 * proportional to the document, however its fragments spread each other.
 */
export function estimateOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Estimate {
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null)
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition
  }
  const setIds = new Map<SelectionSetNode, number>()
  const idOf = (set: SelectionSetNode) => {
    let id = setIds.get(set)
    if (id === undefined) {
      id = setIds.size
      setIds.set(set, id)
    }
    return id
  }
  const memo = new Map<string, Estimate>()

  const deferDirective = schema.getDirective('defer') ?? undefined
  /** A fragment whose @defer is on (`if` not false): it is sent in a payload of its own. */
  const deferred = (selection: SelectionNode) => {
    if (!deferDirective || selection.kind === Kind.FIELD) return false
    const values = getDirectiveValues(deferDirective, selection, variables)
    return values !== undefined && values.if !== false
  }
  /** A selection set of one inline fragment: a deferred part, or a spread made inline. */
  const fragment = (
    typeCondition: NamedTypeNode | undefined,
    selection: SelectionNode,
    selectionSet: SelectionSetNode,
  ): InlineFragmentNode => ({
    kind: Kind.INLINE_FRAGMENT,
    typeCondition,
    // Its @skip/@include still apply; its @defer has made it a part of its own.
    directives: selection.directives?.filter((d) => d.name.value !== 'defer'),
    selectionSet,
  })
  const setOf = (selections: readonly SelectionNode[]): SelectionSetNode => ({
    kind: Kind.SELECTION_SET,
    selections,
  })
  /**
   * A selection set split as @defer delivers it: what the first payload holds (deferred
   * fragments taken out; the fragments it spreads are read from `now`, split the same way) and
   * each deferred fragment found at this level (through the fragments that are not deferred, each
   * fragment once, as graphql-js collects them), as a set of its own. Once per set.
   */
  type Split = { now: SelectionSetNode; later: SelectionSetNode[] }
  const splits = new Map<SelectionSetNode, Split>()
  const split = (set: SelectionSetNode): Split => {
    let parts = splits.get(set)
    if (parts) return parts
    // Until it is done (a fragment cycle, which validation refuses anyway): as it is.
    splits.set(set, { now: set, later: [] })
    const now: SelectionNode[] = []
    const later: SelectionSetNode[] = []
    const visited = new Set<string>()
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        now.push(selection)
        continue
      }
      const definition =
        selection.kind === Kind.FRAGMENT_SPREAD ? fragments[selection.name.value] : selection
      if (!definition) continue
      if (deferred(selection)) {
        later.push(setOf([fragment(definition.typeCondition, selection, definition.selectionSet)]))
        continue
      }
      const inner = split(definition.selectionSet)
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        now.push(selection)
        if (visited.has(selection.name.value)) continue
        visited.add(selection.name.value)
      } else if (inner.now === definition.selectionSet) {
        now.push(selection)
      } else {
        now.push(fragment(definition.typeCondition, selection, inner.now))
      }
      for (const part of inner.later) {
        later.push(setOf([fragment(definition.typeCondition, selection, part)]))
      }
    }
    parts =
      later.length === 0 && now.every((n, i) => n === set.selections[i])
        ? { now: set, later }
        : { now: setOf(now), later }
    splits.set(set, parts)
    return parts
  }
  /** The fragments as the first payload holds them: their deferred fragments taken out. */
  const firstPayload: Record<string, FragmentDefinitionNode> = Object.create(null)
  for (const [name, definition] of Object.entries(fragments)) {
    firstPayload[name] = deferDirective
      ? { ...definition, selectionSet: split(definition.selectionSet).now }
      : definition
  }

  /** Cost of selections on a type; an abstract type costs what its most costly member does. */
  const costOf = (
    type: GraphQLNamedType,
    sets: readonly SelectionSetNode[],
    knowledge: CompanyKnowledge,
  ): Estimate => {
    const key = `${type.name}|${knowledge}|${sets
      .map(idOf)
      .sort((x, y) => x - y)
      .join(',')}`
    let cost = memo.get(key)
    if (cost === undefined) {
      const members = isAbstractType(type)
        ? schema.getPossibleTypes(type)
        : isObjectType(type)
          ? [type]
          : []
      const costs = members.map((member) => costOn(member, sets, knowledge))
      cost = {
        calls: Math.max(0, ...costs.map((c) => c.calls)),
        objects: Math.max(0, ...costs.map((c) => c.objects)),
      }
      memo.set(key, cost)
    }
    return cost
  }

  const costOn = (
    type: GraphQLObjectType,
    sets: readonly SelectionSetNode[],
    knowledge: CompanyKnowledge,
  ): Estimate => {
    // A field node reached through several sets (fragments spread by each of them) counts once:
    // repeated, the sets below would multiply at every level.
    const fields = new Map<string, Set<FieldNode>>()
    const later: SelectionSetNode[] = []
    for (const set of sets) {
      const parts = split(set)
      later.push(...parts.later)
      for (const [responseKey, nodes] of collectFields(
        schema,
        firstPayload,
        variables,
        type,
        parts.now,
      )) {
        const merged = fields.get(responseKey) ?? new Set()
        for (const node of nodes) merged.add(node)
        fields.set(responseKey, merged)
      }
    }
    const definitions = type.getFields()
    const sharedReads = new Set<string>()
    const total: Estimate = { calls: 0, objects: 0 }
    let named = false
    let asksName = false
    for (const merged of fields.values()) {
      const nodes = [...merged]
      const node = nodes[0]
      const definition = node && definitions[node.name.value]
      if (!node || !definition) continue
      const cost = costOfField(definition)
      const args = cost ? argumentsOf(definition, node, variables) : {}
      let reads = typeof cost?.reads === 'function' ? cost.reads(args) : (cost?.reads ?? 0)
      if (cost?.namesCompany && reads > 0) named = true
      if (cost?.sharedRead !== undefined && reads > 0) {
        if (sharedReads.has(cost.sharedRead)) reads = 0
        sharedReads.add(cost.sharedRead)
      }
      if (cost?.isCompanyName) asksName = true
      const below = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []))
      if (below.length === 0) {
        total.calls += reads
        continue
      }
      const fanOut = cost?.fanOut?.(args) ?? 1
      const children = costOf(getNamedType(definition.type), below, cost?.companies ?? knowledge)
      total.calls += reads + fanOut * children.calls
      // The object the field returns (a connection, a list), and what its items hold.
      total.objects += 1 + fanOut * children.objects
    }
    // Each deferred fragment is a payload of its own, holding all it selects again even where
    // another part selects the same (reads are shared in the operation: the calls are an upper
    // bound).
    for (const part of later) {
      const cost = costOf(type, [part], knowledge)
      total.calls += cost.calls
      total.objects += cost.objects
    }
    // A company nothing names costs one read: for its name, or to learn that it exists at all.
    const isCompany = Object.values(definitions).some((f) => costOfField(f)?.isCompanyName)
    if (isCompany && !named && (knowledge === 'unverified' || (knowledge === 'bare' && asksName))) {
      total.calls += 1
    }
    return total
  }

  const root = schema.getRootType(operation.operation)
  return root ? costOf(root, [operation.selectionSet], 'carried') : { calls: 0, objects: 0 }
}

/** A field's arguments as execution will see them (defaults applied); {} when they are invalid. */
function argumentsOf(
  definition: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Record<string, unknown>,
): Args {
  try {
    return getArgumentValues(definition, node, variables)
  } catch {
    return {}
  }
}
