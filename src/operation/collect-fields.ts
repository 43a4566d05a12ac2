import {
  type ASTNode,
  type DirectiveNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLDirective,
  type GraphQLError,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLObjectType,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  isAbstractType,
  Kind,
  type NamedTypeNode,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
} from 'graphql'
import { refusal } from '../errors/graphql-errors.js'

/** A selection set and whether it is reached through a deferred fragment. */
export interface Entry {
  set: SelectionSetNode
  deferred: boolean
}

/** Fields collected as graphql-js executes them, with which are @defer'red and refusals. */
export class Selections {
  readonly refusals: GraphQLError[] = []
  inParts = false

  constructor(
    protected readonly schema: GraphQLSchema,
    protected readonly fragments: Record<string, FragmentDefinitionNode>,
    protected readonly variables: Record<string, unknown>,
  ) {}

  /** The fields `entries` select on `type` by response key, and this level's deferred fragments. */
  protected collect(type: GraphQLObjectType, entries: readonly Entry[]) {
    const fields = new Map<string, { node: FieldNode; deferred: boolean }[]>()
    const parts: SelectionSetNode[] = []
    const spread = new Set<string>()
    const visit = (set: SelectionSetNode, deferred: boolean) => {
      for (const selection of set.selections) {
        if (!this.included(selection.directives)) continue
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value
          const list = fields.get(key) ?? fields.set(key, []).get(key)
          list?.push({ node: selection, deferred })
          this.noteStream(selection)
          continue
        }
        const fragment =
          selection.kind === Kind.INLINE_FRAGMENT ? selection : this.fragments[selection.name.value]
        if (!fragment || !this.applies(fragment.typeCondition, type)) continue
        const defer = this.directiveValues(this.schema.getDirective('defer'), selection.directives)
        const deferredHere = defer !== undefined && defer.if !== false
        if (selection.kind === Kind.FRAGMENT_SPREAD) {
          const seen = `${selection.name.value}|${deferred || deferredHere}`
          if (spread.has(seen)) continue
          spread.add(seen)
        }
        if (deferredHere) {
          this.inParts = true
          parts.push(fragment.selectionSet)
        }
        visit(fragment.selectionSet, deferred || deferredHere)
      }
    }
    for (const { set, deferred } of entries) visit(set, deferred)
    return { fields, parts }
  }

  /** @stream makes an answer in parts; its initialCount must be 0 or more. */
  private noteStream(node: FieldNode) {
    const values = this.directiveValues(this.schema.getDirective('stream'), node.directives)
    if (values === undefined || values.if === false) return
    this.inParts = true
    const count = values.initialCount
    if (typeof count !== 'number' || count < 0) {
      this.refuse('@stream’s initialCount must be 0 or more.', node, 'initialCount')
    }
  }

  private included(directives: readonly DirectiveNode[] | undefined) {
    if (this.directiveValues(GraphQLSkipDirective, directives)?.if === true) return false
    return this.directiveValues(GraphQLIncludeDirective, directives)?.if !== false
  }

  /** A directive's arguments as execution will see them; one it cannot take is refused now. */
  private directiveValues(
    directive: GraphQLDirective | null | undefined,
    directives: readonly DirectiveNode[] | undefined,
  ) {
    if (!directive || !directives?.length) return undefined
    try {
      return getDirectiveValues(directive, { directives }, this.variables)
    } catch (error) {
      this.refuse((error as Error).message, (error as GraphQLError).nodes?.[0])
      return undefined
    }
  }

  private refuse(message: string, node: ASTNode | undefined, argument?: string) {
    const extensions = argument === undefined ? {} : { argument }
    this.refusals.push(refusal('BAD_USER_INPUT', message, { nodes: node, extensions }))
  }

  private applies(condition: NamedTypeNode | undefined, type: GraphQLObjectType) {
    if (!condition) return true
    const conditional = this.schema.getType(condition.name.value)
    if (conditional === type) return true
    return !!conditional && isAbstractType(conditional) && this.schema.isSubType(conditional, type)
  }

  protected fieldOf(type: GraphQLObjectType, name: string) {
    if (type === this.schema.getQueryType()) {
      if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef
      if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef
    }
    return type.getFields()[name]
  }

  /** A field's arguments as execution will see them; refused as directives'. */
  protected argumentsOf(definition: GraphQLField<unknown, unknown>, node: FieldNode) {
    try {
      return getArgumentValues(definition, node, this.variables)
    } catch (error) {
      this.refuse((error as Error).message, node)
      return undefined
    }
  }
}
