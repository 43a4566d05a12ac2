import { type GraphQLObjectType, type GraphQLResolveInfo, getArgumentValues } from 'graphql'
import { collectSubfields } from 'graphql/execution/collectFields.js'
import type { Context } from '../context.js'
import { readsUpstream } from './upstream-cost.js'

/**
 * Starts, now, the upstream reads of the fields selected on `parent` (as `type`) below the field
 * being resolved, by calling their resolvers. Execution calls the same resolvers again once the
 * parent resolves; they find their reads in flight in this operation's loaders, so nothing is
 * read twice. Used where a parent must wait for an answer (does the company exist?) that its
 * children's reads give anyway: they run together instead of one round trip after the other.
 *
 * Resolves, once their argument checks have run, to how many of those fields accepted their
 * arguments: each of them reports its read's failure at its own path.
 */
export async function startSelectedReads(
  parent: unknown,
  type: GraphQLObjectType,
  ctx: Context,
  info: GraphQLResolveInfo,
): Promise<number> {
  const selected = collectSubfields(
    info.schema,
    info.fragments,
    info.variableValues,
    type,
    info.fieldNodes,
  )
  const definitions = type.getFields()
  let reading = 0
  const refuses = (error: unknown) =>
    (error as { extensions?: { code?: unknown } })?.extensions?.code === 'BAD_USER_INPUT'
  for (const [node] of selected.values()) {
    const definition = node && definitions[node.name.value]
    if (!node || !definition?.resolve || !readsUpstream(definition)) continue
    try {
      const args = getArgumentValues(definition, node, info.variableValues)
      const read = Promise.resolve(definition.resolve(parent, args, ctx, info))
      reading++
      read.catch((error) => {
        if (refuses(error)) reading--
      })
    } catch {
      // Refused at once: no read. The field reports it when execution reaches it.
    }
  }
  // Argument checks run before any await in the resolvers: settled by the next macrotask.
  await new Promise((resolve) => setImmediate(resolve))
  return reading
}
