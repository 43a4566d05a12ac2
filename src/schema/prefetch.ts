import {
  defaultFieldResolver,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  getArgumentValues,
  getNamedType,
  isObjectType,
} from 'graphql'
import { collectSubfields } from 'graphql/execution/collectFields.js'
import { addPath } from 'graphql/jsutils/Path.js'
import type { Context } from '../context.js'

const ignore = () => {}

/**
 * The fields selected below some field nodes on a type, collected once: the items of a list
 * share their field nodes (and, within one request, their variables).
 */
const collected = new WeakMap<
  readonly FieldNode[],
  Map<GraphQLObjectType, Map<string, readonly FieldNode[]>>
>()

function selectedOn(type: GraphQLObjectType, info: GraphQLResolveInfo) {
  let byType = collected.get(info.fieldNodes)
  if (!byType) {
    byType = new Map()
    collected.set(info.fieldNodes, byType)
  }
  let fields = byType.get(type)
  if (!fields) {
    const { schema, fragments, variableValues } = info
    fields = collectSubfields(schema, fragments, variableValues, type, info.fieldNodes)
    byType.set(type, fields)
  }
  return fields
}

/**
 * Starts, now, the upstream reads selected below `value` (of `type`, in every @defer part) while
 * the field being resolved waits for `waiting` before it resolves to it: a company asked for by
 * number waits for its statements read, a list for its details. Every read starts as soon as its
 * parent value is known: one whose parent is itself read (a lookalike's name, below the
 * lookalikes) starts when that answer lands, if the field still waits. Execution then finds
 * them in flight in the operation's loaders: nothing is read twice. Only fields at or below
 * which a read is made (the analysis's `reading`) are resolved here; what one refuses, it
 * reports when execution reaches it.
 */
export function startReadsBelow(
  value: unknown,
  type: GraphQLObjectType,
  ctx: Context,
  info: GraphQLResolveInfo,
  waiting: Promise<unknown>,
): void {
  const reading = ctx.plan?.reading
  if (!reading?.has(info.fieldNodes[0] as FieldNode)) return
  let waits = true
  waiting.then(
    () => (waits = false),
    () => (waits = false),
  )
  const visit = (parent: unknown, parentType: GraphQLObjectType, above: GraphQLResolveInfo) => {
    for (const [key, nodes] of selectedOn(parentType, above)) {
      const node = nodes[0]
      const field = node && reading.has(node) && parentType.getFields()[node.name.value]
      if (!field) continue
      const here: GraphQLResolveInfo = {
        ...above,
        fieldName: field.name,
        fieldNodes: nodes,
        returnType: field.type,
        parentType,
        path: addPath(above.path, key, parentType.name),
      }
      let resolved: unknown
      try {
        const args = getArgumentValues(field, node, above.variableValues)
        resolved = (field.resolve ?? defaultFieldResolver)(parent, args, ctx, here)
      } catch {
        continue
      }
      const below = getNamedType(field.type)
      Promise.resolve(resolved).then((result) => {
        if (!waits || !isObjectType(below)) return
        for (const item of Array.isArray(result) ? result : [result]) {
          if (item !== null && typeof item === 'object') visit(item, below, here)
        }
      }, ignore)
    }
  }
  visit(value, type, info)
}
