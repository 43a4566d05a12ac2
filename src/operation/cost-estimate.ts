import {
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  isAbstractType,
  isObjectType,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql'
import { collectFields } from 'graphql/execution/collectFields.js'
import { DeferSplit } from '../schema/defer-split.js'
import { type CompanyKnowledge, costOfField, type UpstreamCost } from '../schema/upstream-cost.js'

/**
 * The upstream cost of an operation, estimated before it runs. Each field that reads the upstream
 * declares its cost where it is defined (`extensions: upstreamCost({...})` in src/schema/), and
 * the estimate adds them up, times the pages or IDs above each. use-operation-budget.ts refuses
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
  const root = schema.getRootType(operation.operation)
  if (!root) return { calls: 0, objects: 0 }
  const inParts = new DeferSplit(schema.getDirective('defer') ?? undefined, document, variables)
  const estimate = (split: DeferSplit) =>
    new Estimator(schema, variables, split).costOf(root, [operation.selectionSet], 'carried')
  const estimated = estimate(inParts)
  if (!inParts.hasDeferredParts) return estimated
  // A deferred part holds again what another part selects too, but the operation reads each
  // thing once, whatever part asks for it: its calls are those of the operation in one payload.
  const whole = estimate(new DeferSplit(undefined, document, variables))
  return { calls: whole.calls, objects: estimated.objects }
}

/** One operation's estimate: the costs of its selections, each computed once. */
class Estimator {
  private readonly setIds = new Map<SelectionSetNode, number>()
  private readonly memo = new Map<string, Estimate>()

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly variables: Record<string, unknown>,
    /** How the selections are counted: in the parts @defer sends, or as one payload. */
    private readonly defer: DeferSplit,
  ) {}

  /** Cost of selections on a type; an abstract type costs what its most costly member does. */
  costOf(
    type: GraphQLNamedType,
    sets: readonly SelectionSetNode[],
    knowledge: CompanyKnowledge,
  ): Estimate {
    const ids = sets.map((set) => this.idOf(set)).sort((x, y) => x - y)
    const key = `${type.name}|${knowledge}|${ids.join(',')}`
    let cost = this.memo.get(key)
    if (cost === undefined) {
      const members = isAbstractType(type)
        ? this.schema.getPossibleTypes(type)
        : isObjectType(type)
          ? [type]
          : []
      const costs = members.map((member) => this.costOn(member, sets, knowledge))
      cost = {
        calls: Math.max(0, ...costs.map((c) => c.calls)),
        objects: Math.max(0, ...costs.map((c) => c.objects)),
      }
      this.memo.set(key, cost)
    }
    return cost
  }

  private costOn(
    type: GraphQLObjectType,
    sets: readonly SelectionSetNode[],
    knowledge: CompanyKnowledge,
  ): Estimate {
    const { fields, later } = this.collect(type, sets, this.defer)
    const definitions = type.getFields()
    const sharedReads = new Set<string>()
    const total: Estimate = { calls: 0, objects: 0 }
    let asksName = false
    let checkRead = false
    for (const merged of fields.values()) {
      const nodes = [...merged]
      const node = nodes[0]
      const definition = node && definitions[node.name.value]
      if (!node || !definition) continue
      const cost = costOfField(definition)
      const args = cost ? argumentsOf(definition, node, this.variables) : {}
      let reads = readsOf(cost, args)
      if (cost?.isCheckRead && reads > 0) checkRead = true
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
      const children = this.costOf(
        getNamedType(definition.type),
        below,
        cost?.companies ?? knowledge,
      )
      total.calls += reads + fanOut * children.calls
      // The object the field returns (a connection, a list), and what its items hold.
      total.objects += 1 + fanOut * children.objects
    }
    // Each deferred fragment is a payload of its own, holding all it selects again even where
    // another part selects the same (its calls counted so too: estimateOperation takes those of
    // the operation as one payload).
    for (const part of later) {
      const cost = this.costOf(type, [part], knowledge)
      total.calls += cost.calls
      total.objects += cost.objects
    }
    // A company that must be checked, or named when nothing carried its name, may cost the read
    // of its statements (src/loaders/company-directory.ts): its other reads name it when they
    // answer, but one refused (404, 401, 403) says nothing of it, and then its statements decide.
    // Counted unless its statements are read anyway, in any part: that same read.
    const isCompany = Object.values(definitions).some((f) => costOfField(f)?.isCompanyName)
    if (
      isCompany &&
      !checkRead &&
      (knowledge === 'unverified' || (knowledge === 'bare' && asksName))
    ) {
      total.calls += 1
    }
    return total
  }

  /**
   * The fields `sets` select on `type` in the first payload `split` makes, by response key, and
   * the deferred parts. A field node reached through several sets (fragments spread by each of them) counts
   * once: repeated, the sets below would multiply at every level.
   */
  private collect(type: GraphQLObjectType, sets: readonly SelectionSetNode[], split: DeferSplit) {
    const fields = new Map<string, Set<FieldNode>>()
    const later: SelectionSetNode[] = []
    for (const set of sets) {
      const parts = split.of(set)
      later.push(...parts.later)
      const collected = collectFields(
        this.schema,
        split.firstPayload,
        this.variables,
        type,
        parts.now,
      )
      for (const [responseKey, nodes] of collected) {
        const merged = fields.get(responseKey) ?? new Set()
        for (const node of nodes) merged.add(node)
        fields.set(responseKey, merged)
      }
    }
    return { fields, later }
  }

  private idOf(set: SelectionSetNode) {
    let id = this.setIds.get(set)
    if (id === undefined) {
      id = this.setIds.size
      this.setIds.set(set, id)
    }
    return id
  }
}

/** The reads a field makes on each object it is asked on, with these arguments. */
const readsOf = (cost: UpstreamCost | undefined, args: Args) =>
  typeof cost?.reads === 'function' ? cost.reads(args) : (cost?.reads ?? 0)

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
