import {
  type ASTNode,
  type DirectiveNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLList,
  type GraphQLSchema,
  getNullableType,
  Kind,
  type SelectionSetNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql'

/**
 * An operation split into as many parts as @defer and @stream can make of it, for the
 * path-independence battery: put back together, the parts must give the answer the operation
 * gets in one piece.
 */

const directive = (name: string, args: Record<string, number> = {}): DirectiveNode => ({
  kind: Kind.DIRECTIVE,
  name: { kind: Kind.NAME, value: name },
  arguments: Object.entries(args).map(([arg, value]) => ({
    kind: Kind.ARGUMENT,
    name: { kind: Kind.NAME, value: arg },
    value: { kind: Kind.INT, value: String(value) },
  })),
})
const withDirective = <T extends { directives?: readonly DirectiveNode[] }>(
  node: T,
  added: DirectiveNode,
): T => ({ ...node, directives: [...(node.directives ?? []), added] })

/**
 * Every directive the operation holds, as graphql-armor's MAX_DIRECTIVES counts them: a
 * fragment's once for each spread of it.
 */
function directiveCount(document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d)
  }
  const inSet = (set: SelectionSetNode | undefined, seen: string[]): number =>
    (set?.selections ?? []).reduce((sum, s) => {
      const own = s.directives?.length ?? 0
      if (s.kind !== Kind.FRAGMENT_SPREAD) return sum + own + inSet(s.selectionSet, seen)
      const fragment = fragments.get(s.name.value)
      if (!fragment || seen.includes(s.name.value)) return sum + own
      const inner =
        (fragment.directives?.length ?? 0) + inSet(fragment.selectionSet, [...seen, s.name.value])
      return sum + own + inner
    }, 0)
  return document.definitions.reduce(
    (sum, d) =>
      d.kind === Kind.OPERATION_DEFINITION
        ? sum + (d.directives?.length ?? 0) + inSet(d.selectionSet, [])
        : sum,
    0,
  )
}

/**
 * The operation split by @defer and @stream as far as `maxDirectives` allows: each fragment
 * deferred, each field (but `__typename`) in a deferred fragment of its own, list fields
 * streamed after their first item (every field of one response key at once: fields that merge
 * must agree on @stream). The places are taken spread evenly over the document, then the rest in
 * order, each kept while the count stays within the limit.
 */
export function deferEverywhere(
  schema: GraphQLSchema,
  document: DocumentNode,
  maxDirectives: number,
): DocumentNode {
  const candidates: { into: keyof Choice; nodes: ASTNode[] }[] = []
  const lists = new Map<string, ASTNode[]>()
  const typeInfo = new TypeInfo(schema)
  const deferred = (node: ASTNode) => {
    candidates.push({ into: 'deferred', nodes: [node] })
  }
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        if (node.name.value === '__typename') return
        deferred(node)
        if (!(getNullableType(typeInfo.getType()) instanceof GraphQLList)) return
        const key = node.alias?.value ?? node.name.value
        const group = lists.get(key)
        if (group) {
          group.push(node)
          return
        }
        const nodes = [node]
        lists.set(key, nodes)
        candidates.push({ into: 'streamed', nodes })
      },
      FragmentSpread: deferred,
      InlineFragment: deferred,
    }),
  )
  const stride = Math.max(1, Math.ceil(candidates.length / maxDirectives))
  const order = [
    ...candidates.filter((_, i) => i % stride === 0),
    ...candidates.filter((_, i) => i % stride !== 0),
  ]
  const chosen: Choice = { deferred: new Set(), streamed: new Set() }
  let rewritten = document
  for (const { into, nodes } of order) {
    for (const node of nodes) chosen[into].add(node)
    const attempt = apply(document, chosen)
    if (directiveCount(attempt) <= maxDirectives) rewritten = attempt
    else for (const node of nodes) chosen[into].delete(node)
  }
  return rewritten
}

interface Choice {
  /** Fragments to defer, and fields to put in a deferred fragment of their own. */
  deferred: Set<ASTNode>
  /** List fields to stream. */
  streamed: Set<ASTNode>
}

function apply(document: DocumentNode, { deferred, streamed }: Choice): DocumentNode {
  const defer = directive('defer')
  const stream = directive('stream', { initialCount: 1 })
  return visit(document, {
    Field(node) {
      if (!deferred.has(node) && !streamed.has(node)) return undefined
      // A copy either way: the field is visited again inside its fragment, and must not be
      // wrapped twice.
      const field = streamed.has(node) ? withDirective(node, stream) : { ...node }
      if (!deferred.has(node)) return field
      return {
        kind: Kind.INLINE_FRAGMENT,
        directives: [defer],
        selectionSet: { kind: Kind.SELECTION_SET, selections: [field] },
      }
    },
    FragmentSpread: (node) => (deferred.has(node) ? withDirective(node, defer) : undefined),
    InlineFragment: (node) => (deferred.has(node) ? withDirective(node, defer) : undefined),
  })
}
