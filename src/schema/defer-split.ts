import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLDirective,
  getDirectiveValues,
  type InlineFragmentNode,
  Kind,
  type NamedTypeNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql'

/** A selection set as @defer delivers it: what the first payload holds, and each deferred part. */
export interface Split {
  now: SelectionSetNode
  later: SelectionSetNode[]
}

/**
 * The selection sets of one document split as @defer delivers them, for one set of variables
 * (`@defer(if:)`): each set once, however often the estimate asks.
 */
export class DeferSplit {
  /** The fragments as the first payload holds them: their deferred fragments taken out. */
  readonly firstPayload: Record<string, FragmentDefinitionNode> = Object.create(null)
  private readonly fragments: Record<string, FragmentDefinitionNode> = Object.create(null)
  private readonly splits = new Map<SelectionSetNode, Split>()
  /** Whether a set split so far has a deferred part. */
  hasDeferredParts = false

  /** `directive`: the schema's @defer; without it, every set is one payload. */
  constructor(
    private readonly directive: GraphQLDirective | undefined,
    document: DocumentNode,
    private readonly variables: Record<string, unknown>,
  ) {
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) {
        this.fragments[definition.name.value] = definition
      }
    }
    for (const [name, definition] of Object.entries(this.fragments)) {
      this.firstPayload[name] = this.directive
        ? { ...definition, selectionSet: this.of(definition.selectionSet).now }
        : definition
    }
  }

  /**
   * What the first payload holds of `set` (deferred fragments taken out; the fragments it
   * spreads are read from `now`, split the same way) and each deferred fragment found at this
   * level (through the fragments that are not deferred, each fragment once, as graphql-js
   * collects them), as a set of its own.
   */
  of(set: SelectionSetNode): Split {
    let parts = this.splits.get(set)
    if (parts) return parts
    // Until it is done (a fragment cycle, which validation refuses anyway): as it is.
    this.splits.set(set, { now: set, later: [] })
    const now: SelectionNode[] = []
    const later: SelectionSetNode[] = []
    const visited = new Set<string>()
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        now.push(selection)
        continue
      }
      const definition =
        selection.kind === Kind.FRAGMENT_SPREAD ? this.fragments[selection.name.value] : selection
      if (!definition) continue
      if (this.deferred(selection)) {
        later.push(setOf([inline(definition.typeCondition, selection, definition.selectionSet)]))
        continue
      }
      const inner = this.of(definition.selectionSet)
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        now.push(selection)
        if (visited.has(selection.name.value)) continue
        visited.add(selection.name.value)
      } else if (inner.now === definition.selectionSet) {
        now.push(selection)
      } else {
        now.push(inline(definition.typeCondition, selection, inner.now))
      }
      for (const part of inner.later) {
        later.push(setOf([inline(definition.typeCondition, selection, part)]))
      }
    }
    if (later.length > 0) this.hasDeferredParts = true
    parts =
      later.length === 0 && now.every((n, i) => n === set.selections[i])
        ? { now: set, later }
        : { now: setOf(now), later }
    this.splits.set(set, parts)
    return parts
  }

  /** A fragment whose @defer is on (`if` not false): it is sent in a payload of its own. */
  private deferred(selection: SelectionNode) {
    if (!this.directive || selection.kind === Kind.FIELD) return false
    const values = getDirectiveValues(this.directive, selection, this.variables)
    return values !== undefined && values.if !== false
  }
}

/** A selection set of one inline fragment: a deferred part, or a spread made inline. */
function inline(
  typeCondition: NamedTypeNode | undefined,
  selection: SelectionNode,
  selectionSet: SelectionSetNode,
): InlineFragmentNode {
  return {
    kind: Kind.INLINE_FRAGMENT,
    typeCondition,
    // Its @skip/@include still apply; its @defer has made it a part of its own.
    directives: selection.directives?.filter((d) => d.name.value !== 'defer'),
    selectionSet,
  }
}

function setOf(selections: readonly SelectionNode[]): SelectionSetNode {
  return { kind: Kind.SELECTION_SET, selections }
}
