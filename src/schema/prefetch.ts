import { type GraphQLObjectType, type GraphQLResolveInfo, getArgumentValues, Kind } from 'graphql'
import { collectSubfields } from 'graphql/execution/collectFields.js'
import type { Context } from '../context.js'
import { DeferSplit } from './defer-split.js'
import { readsUpstream } from './upstream-cost.js'

/**
 * The fields selected below the field being resolved: those sent with it (its deferred fragments
 * left out, as @defer delivers them), or those of every part.
 */
type Parts = 'sent with it' | 'every part'

/**
 * Starts, now, the upstream reads of the fields selected on `parent` (as `type`) below the field
 * being resolved, by calling their resolvers. Execution calls the same resolvers again once the
 * parent resolves; they find their reads in flight in this operation's loaders, so nothing is
 * read twice. Used where a parent must wait for an answer (does the company exist?) that its
 * children's reads give anyway: they run together instead of one round trip after the other.
 * A parent that waits for the reads asks only for those sent with it: a deferred part's reads
 * would hold its own part back until they answer.
 *
 * Resolves, once their argument checks have run, to how many of those fields accepted their
 * arguments: each of them reports its read's failure at its own path.
 */
export async function startSelectedReads(
  parent: unknown,
  type: GraphQLObjectType,
  ctx: Context,
  info: GraphQLResolveInfo,
  parts: Parts,
): Promise<number> {
  const selected =
    parts === 'every part'
      ? collectSubfields(info.schema, info.fragments, info.variableValues, type, info.fieldNodes)
      : sentWithParent(type, info)
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

/** The fields below the field being resolved that its own part holds. */
function sentWithParent(type: GraphQLObjectType, info: GraphQLResolveInfo) {
  const split = splitOf(info)
  const fieldNodes = info.fieldNodes.map((node) =>
    node.selectionSet ? { ...node, selectionSet: split.of(node.selectionSet).now } : node,
  )
  return collectSubfields(info.schema, split.firstPayload, info.variableValues, type, fieldNodes)
}

/** One split for each field resolved: nodes() checks all its IDs with one info. */
const splits = new WeakMap<GraphQLResolveInfo, DeferSplit>()

function splitOf(info: GraphQLResolveInfo): DeferSplit {
  let split = splits.get(info)
  if (!split) {
    const fragments = { kind: Kind.DOCUMENT, definitions: Object.values(info.fragments) } as const
    split = new DeferSplit(
      info.schema.getDirective('defer') ?? undefined,
      fragments,
      info.variableValues,
    )
    splits.set(info, split)
  }
  return split
}
