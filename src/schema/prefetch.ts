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

/** The fields selected below some field nodes on a type, collected once: a list's items share
 *  their field nodes (and, within one request, their variables). */
const collected = new WeakMap<
  readonly FieldNode[],
  Map<GraphQLObjectType, Map<string, readonly FieldNode[]>>
>()

function selectedOn(type: GraphQLObjectType, info: GraphQLResolveInfo) {
  const byType = collected.get(info.fieldNodes) ?? new Map()
  collected.set(info.fieldNodes, byType)
  let fields = byType.get(type)
  if (!fields) {
    const { schema, fragments, variableValues } = info
    fields = collectSubfields(schema, fragments, variableValues, type, info.fieldNodes)
    byType.set(type, fields)
  }
  return fields
}

/**
 * Starts now the upstream reads selected below `value` (of type `typename`, in every @defer part)
 * while the field waits for `waiting` (a company's statements read, a list's details), each as
 * soon as its parent is known; execution then finds them in flight in the loaders. Only fields
 * that read (the analysis's `reading`) are resolved here; errors are reported by execution.
 */
export function startReadsBelow(
  value: unknown,
  typename: 'Company' | 'List',
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
  visit(value, info.schema.getType(typename) as GraphQLObjectType, info)
}
