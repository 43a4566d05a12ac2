import { type FieldNode, type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql'
import type { Part } from '../loaders/company-directory.js'
import { DeferSplit } from './defer-split.js'

/**
 * The part of the answer a field being resolved is sent in: the first payload, or a later one
 * (@defer). A field reached both ways (a fragment spread in the first payload and in a deferred
 * one) counts as the first's, so the first payload may wait for it, never the other way round.
 */
export function partOf(info: GraphQLResolveInfo): Part {
  const node = info.fieldNodes[0]
  return node && firstPayloadFields(info).has(node) ? 'first' : 'later'
}

/** The field nodes of the first payload, for each operation and set of variables. */
const walked = new WeakMap<object, WeakMap<object, Set<FieldNode>>>()

function firstPayloadFields(info: GraphQLResolveInfo): Set<FieldNode> {
  let byVariables = walked.get(info.operation)
  if (!byVariables) {
    byVariables = new WeakMap()
    walked.set(info.operation, byVariables)
  }
  let fields = byVariables.get(info.variableValues)
  if (!fields) {
    fields = walk(info)
    byVariables.set(info.variableValues, fields)
  }
  return fields
}

/** Every field node the operation reaches through no deferred fragment, each fragment once. */
function walk(info: GraphQLResolveInfo): Set<FieldNode> {
  const fragments = { kind: Kind.DOCUMENT, definitions: Object.values(info.fragments) } as const
  const split = new DeferSplit(
    info.schema.getDirective('defer') ?? undefined,
    fragments,
    info.variableValues,
  )
  const fields = new Set<FieldNode>()
  const spread = new Set<string>()
  const visit = (set: SelectionSetNode) => {
    for (const selection of split.of(set).now.selections) {
      if (selection.kind === Kind.FIELD) {
        fields.add(selection)
        if (selection.selectionSet) visit(selection.selectionSet)
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet)
      } else if (!spread.has(selection.name.value)) {
        spread.add(selection.name.value)
        const fragment = info.fragments[selection.name.value]
        if (fragment) visit(fragment.selectionSet)
      }
    }
  }
  visit(info.operation.selectionSet)
  return fields
}
