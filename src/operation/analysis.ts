import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLAbstractType,
  type GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
} from 'graphql'
import { LRUCache } from 'lru-cache'
import type { OperationPlan } from '../context.js'
import { checksOf } from '../schema/argument-checks.js'
import { costOfField, type Knowledge, STATEMENTS } from '../schema/upstream-cost.js'
import { type Entry, Selections } from './collect-fields.js'
import { introspectionObjects } from './introspection-size.js'

/**
 * What an operation will do, worked out before it runs in one walk, each selection once per type
 * (in time proportional to the document however its fragments spread each other).
 */
export interface Analysis extends OperationPlan {
  /** Upstream calls it can cause: an upper bound where it must guess. */
  calls: number
  /** Objects its response can hold, each deferred part counted again (it sends them again). */
  objects: number
  /** Field nodes whose arguments are checked with the request's values. */
  checked: readonly { field: GraphQLField<unknown, unknown>; node: FieldNode }[]
  inParts: boolean
  /** Refusals the document and the variables' shape decide (an @stream initialCount below 0). */
  refusals: readonly GraphQLError[]
}

/** `reads`: the selection, or one below it, reads beside what its object waits for. */
type Cost = Pick<Analysis, 'calls' | 'objects'> & { reads: boolean }

class Walker extends Selections {
  readonly checked = new Map<FieldNode, Analysis['checked'][number]>()
  readonly firstPart = new Set<FieldNode>()
  readonly reading = new Set<FieldNode>()
  private readonly memo = new Map<string, Cost>()
  private readonly setIds = new Map<SelectionSetNode, number>()

  /** Cost of selections on a type; an abstract type costs what its most costly member does. */
  costOf(type: GraphQLNamedType, entries: readonly Entry[], knowledge: Knowledge): Cost {
    const ids = entries.map(({ set, deferred }) => this.idOf(set) * 2 + (deferred ? 1 : 0))
    const key = `${type.name}|${knowledge}|${ids.sort((x, y) => x - y).join(',')}`
    let cost = this.memo.get(key)
    if (cost === undefined) {
      const members = isObjectType(type)
        ? [type]
        : this.schema.getPossibleTypes(type as GraphQLAbstractType)
      const costs = members.map((member) => this.costOn(member, entries, knowledge))
      cost = {
        calls: Math.max(0, ...costs.map((c) => c.calls)),
        objects: Math.max(0, ...costs.map((c) => c.objects)),
        reads: costs.some((c) => c.reads),
      }
      this.memo.set(key, cost)
    }
    return cost
  }

  private costOn(type: GraphQLObjectType, entries: readonly Entry[], knowledge: Knowledge): Cost {
    const { fields, parts } = this.collect(type, entries)
    // Fields of one object that share a read make it once; an unverified company, its statements.
    const shared = new Set<string>(knowledge === 'unverified' ? [STATEMENTS] : [])
    const total: Cost = { calls: 0, objects: 0, reads: false }
    for (const occurrences of fields.values()) {
      const nodes = occurrences.map((o) => o.node)
      const node = nodes[0] as FieldNode
      for (const o of occurrences) if (!o.deferred) this.firstPart.add(o.node)
      const definition = this.fieldOf(type, node.name.value)
      if (!definition) continue
      if (definition === SchemaMetaFieldDef || definition === TypeMetaFieldDef) {
        const { schema, fragments, variables } = this
        total.objects += introspectionObjects(schema, fragments, variables, definition, nodes)
        continue
      }
      if (checksOf(definition))
        for (const n of nodes) this.checked.set(n, { field: definition, node: n })
      const cost = costOfField(definition)
      const args = node.arguments?.length ? this.argumentsOf(definition, node) : {}
      // Refused (see argumentsOf): the operation will not run.
      if (!args) continue
      const perArgs = typeof cost?.reads === 'function' ? cost.reads(args) : (cost?.reads ?? 0)
      let reads = cost?.unlessCarried && knowledge === 'carried' ? 0 : perArgs
      // A company asked for by number waits for its statements read: already in flight.
      const awaited = knowledge === 'unverified' && cost?.sharedRead === STATEMENTS
      if (cost?.sharedRead !== undefined && reads > 0) {
        shared.add(cost.sharedRead)
        reads = 0
        if (!awaited) for (const n of nodes) this.reading.add(n)
        total.reads ||= !awaited
      }
      const below = occurrences.flatMap((o) =>
        o.node.selectionSet ? [{ set: o.node.selectionSet, deferred: o.deferred }] : [],
      )
      const fanOut = below.length > 0 ? (cost?.fanOut?.(args) ?? 1) : 0
      // What is known passes down a field that brings nothing of its own (a connection's edges
      // and nodes), but not whether the object itself exists.
      const known = cost?.brings ?? (knowledge === 'unverified' ? 'carried' : knowledge)
      const children =
        below.length > 0
          ? this.costOf(getNamedType(definition.type), below, known)
          : { calls: 0, objects: 0, reads: false }
      if (reads > 0 || children.reads) {
        for (const n of nodes) this.reading.add(n)
        total.reads = true
      }
      total.calls += reads + fanOut * children.calls
      if (below.length > 0) total.objects += 1 + fanOut * children.objects
    }
    total.calls += shared.size
    // Each deferred fragment is a payload of its own, holding again what it selects.
    for (const part of parts) {
      total.objects += this.costOf(type, [{ set: part, deferred: true }], knowledge).objects
    }
    return total
  }

  private idOf(set: SelectionSetNode) {
    return this.setIds.get(set) ?? (this.setIds.set(set, this.setIds.size).get(set) as number)
  }
}

export function analyse(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Analysis {
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null)
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition
  }
  const walker = new Walker(schema, fragments, variables)
  // Validation has refused an operation the schema has no root type for (shape-limits.ts).
  const root = schema.getRootType(operation.operation) as GraphQLObjectType
  return {
    ...walker.costOf(root, [{ set: operation.selectionSet, deferred: false }], 'carried'),
    checked: [...walker.checked.values()],
    firstPart: walker.firstPart,
    reading: walker.reading,
    inParts: walker.inParts,
    refusals: walker.refusals,
  }
}

/**
 * `analyse`, remembered per document (yoga's parser cache hands the same object back for the
 * same text) and per operation + the shape of its variables, not the text of strings, so the
 * operations a client repeats with other companies or cursors share one analysis.
 */
export function analysisCache(): typeof analyse {
  const analyses = new WeakMap<DocumentNode, LRUCache<string, Analysis>>()
  return (schema, document, operation, variables) => {
    let cache = analyses.get(document)
    if (!cache) {
      cache = new LRUCache({ max: 64 })
      analyses.set(document, cache)
    }
    const key = `${operation.name?.value ?? ''}\n${shapeOf(variables)}`
    let analysis = cache.get(key)
    if (analysis === undefined) {
      analysis = analyse(schema, document, operation, variables)
      cache.set(key, analysis)
    }
    return analysis
  }
}

/** The key of a value's shape; below 8 levels (only `_Any` goes there) nothing counts, so JSON
 *  nested thousands deep costs no stack. */
function shapeOf(value: unknown, depth = 0): string {
  if (typeof value === 'string') return '""'
  if (typeof value !== 'object' || value === null) return String(value)
  if (depth > 8) return '…'
  if (Array.isArray(value)) return `[${value.map((item) => shapeOf(item, depth + 1))}]`
  const entries = Object.entries(value).map(
    ([k, v]) => `${JSON.stringify(k)}:${shapeOf(v, depth + 1)}`,
  )
  return `{${entries}}`
}
