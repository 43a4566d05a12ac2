import {
  __Type,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  Kind,
  type SelectionSetNode,
  TypeMetaFieldDef,
} from 'graphql'
import { collectFields } from 'graphql/execution/collectFields.js'

/**
 * The objects an introspection field (`__schema`, `__type`) answers with, counted exactly with
 * graphql-js's own introspection resolvers, each schema element and selection once.
 */
export function introspectionObjects(
  schema: GraphQLSchema,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
): number {
  const info = { schema } as GraphQLResolveInfo
  const memo = new Map<unknown, Map<string, number>>()
  const setIds = new Map<SelectionSetNode, number>()
  const idsOf = (sets: readonly SelectionSetNode[]) =>
    sets
      .map((set) => setIds.get(set) ?? setIds.set(set, setIds.size).get(set))
      .sort()
      .join(',')

  /** Objects in `value` (one, a list, or none) and below it, for these selections. */
  const countOf = (
    def: GraphQLField<unknown, unknown>,
    source: unknown,
    fieldNodes: readonly FieldNode[],
  ): number => {
    const sets = fieldNodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []))
    if (sets.length === 0) return 0
    const args = getArgumentValues(def, fieldNodes[0] as FieldNode, variables)
    const value = def.resolve
      ? def.resolve(source, args, undefined, info)
      : (source as Record<string, unknown>)[def.name]
    const type = getNamedType(def.type) as GraphQLObjectType
    let total = 0
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== null && item !== undefined) total += 1 + below(type, item, sets)
    }
    return total
  }

  /** Objects below one value of `type`, each value and selection counted once. */
  const below = (
    type: GraphQLObjectType,
    value: unknown,
    sets: readonly SelectionSetNode[],
  ): number => {
    const key = idsOf(sets)
    let known = memo.get(value)
    const counted = known?.get(key)
    if (counted !== undefined) return counted
    let total = 0
    const definitions = type.getFields()
    // One set of them all, so that fields are merged by response key as execution merges them.
    const merged = {
      kind: Kind.SELECTION_SET as const,
      selections: sets.flatMap((s) => s.selections),
    }
    for (const fieldNodes of collectFields(schema, fragments, variables, type, merged).values()) {
      const def = definitions[(fieldNodes[0] as FieldNode).name.value]
      if (def) total += countOf(def, value, fieldNodes)
    }
    known ??= memo.set(value, new Map()).get(value)
    known?.set(key, total)
    return total
  }

  // The analysis is remembered whatever strings the variables hold: `__type(name: $name)` is
  // counted as the largest type it could name.
  const name = (nodes[0] as FieldNode).arguments?.find((a) => a.name.value === 'name')?.value
  if (field === TypeMetaFieldDef && name?.kind === Kind.VARIABLE) {
    const sets = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []))
    const types = Object.values(schema.getTypeMap())
    return Math.max(0, ...types.map((type) => 1 + below(__Type, type, sets)))
  }
  return countOf(field, undefined, nodes)
}
