import SchemaBuilder, {
  BasePlugin,
  type PothosOutputFieldConfig,
  type SchemaTypes,
} from '@pothos/core'
import {
  BREAK,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  getNamedType,
  getNullableType,
  getOperationAST,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  responsePathAsArray,
  type SelectionSetNode,
  visit,
} from 'graphql'
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga'
import type { Context } from './context.js'

/**
 * Branches of the response that an error has already nulled: what is inside one is thrown away,
 * so no upstream read is made for it. graphql-js stops waiting for such a branch and the
 * operation's end then drops its reads; graphql-jit (src/compiled-execution.ts) runs every
 * resolver to the end, so without this a failed statement that nulled a whole list still let
 * each of the list's lookalikes read its statements.
 *
 * Each field that reads upstream (it declares an `upstreamCost`) is wrapped: when it fails, the
 * branch its null lands on (the nearest nullable place above it) is noted; inside a noted branch,
 * it fails at once with an error that no response shows.
 */
export class NulledBranches {
  /** The branches noted, each by its key (see keyOf): a field's check costs its depth. */
  private readonly branches = new Set<string>()

  /** Set when graphql-jit runs the operation: it waits for every field it has started. */
  waitsForEveryField = false
  /** Fields still waited for, each with its path and how to end the wait. */
  private readonly pending = new Set<{ path: (string | number)[]; end: () => void }>()
  /** The failure whose null reached the root (data is null), with its field. */
  rootFailure: { error: unknown; info: GraphQLResolveInfo } | undefined

  /** `endOperation` drops the operation's pending reads (see note()). */
  constructor(private readonly endOperation: () => void = () => {}) {}

  /** Notes the branch the failure of the field `info` makes null. */
  note(info: GraphQLResolveInfo, error: unknown): void {
    if (!isNonNullType(info.returnType)) return // its own null, with nothing below it yet
    const branch = nulledBranch(info, responsePathAsArray(info.path))
    // Already null, itself or a branch around it: what is inside has been ended.
    if (!branch || this.covers(branch)) return
    this.branches.add(keyOf(branch))
    if (!this.waitsForEveryField) return
    // graphql-jit waits for every field it has started: those inside the branch end now (their
    // reads, retries included, end with the operation, as with graphql-js), and when the null
    // reaches the root, so does the operation, with reads no field of it waits for (the items of
    // nodes(ids:), a list's details). graphql-jit may then be handed the errors of those before
    // this one, and keeps only the first error to reach the root: src/compiled-execution.ts
    // answers with this one.
    if (branch.length === 0) this.rootFailure ??= { error, info }
    for (const entry of this.pending) if (within(branch, entry.path)) entry.end()
    if (branch.length === 0) this.endOperation()
  }

  /**
   * `result`, noting its failure; under graphql-jit, INSIDE_NULLED_BRANCH at once if the field's
   * branch is nulled meanwhile.
   */
  awaited<T>(info: GraphQLResolveInfo, result: Promise<T>): Promise<T> {
    if (!this.waitsForEveryField) {
      // graphql-js stops waiting for a nulled branch itself.
      result.catch((error: unknown) => this.note(info, error))
      return result
    }
    return new Promise<T>((resolve, reject) => {
      const entry = {
        path: responsePathAsArray(info.path),
        end: () => {
          this.pending.delete(entry)
          reject(INSIDE_NULLED_BRANCH)
        },
      }
      this.pending.add(entry)
      result.then(
        (value) => {
          this.pending.delete(entry)
          resolve(value)
        },
        (error) => {
          this.pending.delete(entry)
          this.note(info, error)
          reject(error)
        },
      )
    })
  }

  /** Whether the field at `info.path` is inside a branch already nulled. */
  holds(info: GraphQLResolveInfo): boolean {
    return this.branches.size > 0 && this.covers(responsePathAsArray(info.path))
  }

  /** Whether `path` is inside a noted branch: one lookup per place along it. */
  private covers(path: readonly (string | number)[]): boolean {
    let key = ''
    if (this.branches.has(key)) return true
    for (const place of path) {
      key += `/${place}`
      if (this.branches.has(key)) return true
    }
    return false
  }
}

/** A branch's key: its places each after a `/` (response keys are names, which have none). */
const keyOf = (path: readonly (string | number)[]) => path.map((place) => `/${place}`).join('')

const within = (branch: readonly (string | number)[], path: readonly (string | number)[]) =>
  branch.length <= path.length && branch.every((key, i) => key === path[i])

/** Thrown for a field inside a nulled branch; dropped from every response. */
const INSIDE_NULLED_BRANCH = new GraphQLError('Inside a branch already nulled.', {
  extensions: { code: 'INSIDE_NULLED_BRANCH' },
})

/** What an operation's document is read from to find where a null lands. */
type Where = Pick<GraphQLResolveInfo, 'schema' | 'operation' | 'fragments'>

/**
 * The branch a failure at `path` makes null: the path up to its nearest nullable place (empty:
 * the whole data), or undefined for a path the document does not lead along to the end.
 */
export function nulledBranch(
  where: Where,
  path: readonly (string | number)[],
): (string | number)[] | undefined {
  // Where a null lands depends on the path's keys, not on which list items: worked out once per
  // operation and shape (a list of 600 failing items is one walk of the document, not 600).
  let byShape = landings.get(where.operation)
  if (!byShape) {
    byShape = new Map()
    landings.set(where.operation, byShape)
  }
  const shape = path.map((place) => (typeof place === 'number' ? '/#' : `/${place}`)).join('')
  let length = byShape.get(shape)
  if (length === undefined) {
    const nullable = nullablePlaces(where, path)
    let landing = path.length - 1
    while (landing >= 0 && !nullable[landing]) landing--
    length = nullable.length < path.length ? null : landing + 1
    byShape.set(shape, length)
  }
  return length === null ? undefined : path.slice(0, length)
}

/** Per operation and path shape, the length of the branch a failure there nulls (null: none). */
const landings = new WeakMap<OperationDefinitionNode, Map<string, number | null>>()

/**
 * For each place of `path` (a field or a list item), whether null may stand there, from the
 * operation's document: the path has response keys (aliases), and graphql-jit's paths do not
 * name the parent types, so each key is looked up in the selections that can hold it. Fields
 * that share a response key have the same nullability (validation checks it), so any one does.
 */
function nullablePlaces(info: Where, path: readonly (string | number)[]): boolean[] {
  const nullable: boolean[] = []
  let type: GraphQLOutputType = info.schema.getQueryType() as GraphQLOutputType
  // Each selection set with the type it is asked of: fields under one key may come from
  // fragments on different types (their nullability is the same, validation checks it).
  let selections: Selected[] = [{ set: info.operation.selectionSet, on: getNamedType(type).name }]
  for (const key of path) {
    if (typeof key === 'number') {
      const list = getNullableType(type)
      if (!isListType(list)) break
      type = list.ofType as GraphQLOutputType
      nullable.push(!isNonNullType(type))
      continue
    }
    const fields = fieldsAt(info, selections, key)
    const first = fields[0]
    if (!first) break
    type = first.field.type
    nullable.push(!isNonNullType(type))
    selections = fields.flatMap(({ node, field }) =>
      node.selectionSet ? [{ set: node.selectionSet, on: getNamedType(field.type).name }] : [],
    )
  }
  return nullable
}

/** The fields of `sets` answered under `key`, each with its definition on the type it is asked of. */
interface Selected {
  set: SelectionSetNode
  on: string
}

function fieldsAt(
  info: Where,
  sets: readonly Selected[],
  key: string,
): { node: FieldNode; field: GraphQLField<unknown, unknown> }[] {
  const found: { node: FieldNode; field: GraphQLField<unknown, unknown> }[] = []
  const visited = new Set<string>()
  const visit = (set: SelectionSetNode, on: string) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if ((selection.alias ?? selection.name).value !== key) continue
        const owner = info.schema.getType(on)
        const field =
          isObjectType(owner) || isInterfaceType(owner)
            ? owner.getFields()[selection.name.value]
            : undefined
        if (field) found.push({ node: selection, field })
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet, selection.typeCondition?.name.value ?? on)
      } else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value)
        const fragment = info.fragments[selection.name.value]
        if (fragment) visit(fragment.selectionSet, fragment.typeCondition.name.value)
      }
    }
  }
  for (const { set, on } of sets) visit(set, on)
  return found
}

const incremental = new WeakMap<OperationDefinitionNode, boolean>()

/** Whether the operation asks for @defer or @stream, in itself or in its fragments. */
function isIncremental(info: GraphQLResolveInfo): boolean {
  let answer = incremental.get(info.operation)
  if (answer === undefined) {
    answer = false
    const check = {
      Directive(node: DirectiveNode) {
        if (node.name.value === 'defer' || node.name.value === 'stream') {
          answer = true
          return BREAK
        }
      },
    }
    for (const node of [info.operation, ...Object.values(info.fragments)]) {
      if (!answer) visit(node, check)
    }
    incremental.set(info.operation, answer)
  }
  return answer
}

/** Wraps every field that reads upstream; see NulledBranches. */
class NulledBranchesPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    if (!fieldConfig.extensions?.upstreamCost) return resolver
    const fieldName = fieldConfig.name
    return (parent, args, context, info) => {
      // Called by another field (src/prefetch.ts starts its children's reads with its own
      // info), or in an operation delivered in parts, where a null lands within its part:
      // graphql-js runs those, and no branch is noted.
      if (info.fieldName !== fieldName || isIncremental(info)) {
        return resolver(parent, args, context, info)
      }
      const branches = (context as Context).nulledBranches
      if (branches.holds(info)) throw INSIDE_NULLED_BRANCH
      let result: unknown
      try {
        result = resolver(parent, args, context, info)
      } catch (error) {
        branches.note(info, error)
        throw error
      }
      return result instanceof Promise ? branches.awaited(info, result) : result
    }
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      nulledBranches: NulledBranchesPlugin<Types>
    }
  }
}

SchemaBuilder.registerPlugin('nulledBranches', NulledBranchesPlugin)

/**
 * Drops, from every result (streamed ones too), the errors of fields inside nulled branches, and
 * all but the first error whose null lands on the same place: graphql-js stops waiting for a
 * place once it is null, so it reports one (graphql-jit reported one per item of a list whose
 * items failed alike).
 */
export function useNulledBranches(): Plugin {
  return {
    onExecute: ({ args }) => ({
      onExecuteDone: (payload) =>
        handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
          if (!result.errors || result.errors.length === 0) return
          const document = args.document as DocumentNode
          const operation = getOperationAST(document, args.operationName)
          const where = operation && {
            schema: args.schema,
            operation,
            fragments: Object.fromEntries(
              document.definitions.flatMap((definition) =>
                definition.kind === Kind.FRAGMENT_DEFINITION
                  ? [[definition.name.value, definition] as const]
                  : [],
              ),
            ),
          }
          const landings = new Set<string>()
          const errors = result.errors.filter((error) => {
            if (error.originalError === INSIDE_NULLED_BRANCH) return false
            const branch = where && error.path && nulledBranch(where, error.path)
            if (!branch) return true
            const landing = JSON.stringify(branch)
            if (landings.has(landing)) return false
            landings.add(landing)
            return true
          })
          if (errors.length < result.errors.length) {
            setResult({ ...result, errors: errors.length > 0 ? errors : undefined })
          }
        }),
    }),
  }
}
