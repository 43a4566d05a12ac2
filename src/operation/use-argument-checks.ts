import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isAbstractType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  visit,
} from 'graphql'
import { collectFields } from 'graphql/execution/collectFields.js'
import type { Plugin } from 'graphql-yoga'
import { refusal } from '../errors/graphql-errors.js'
import { boundsOf } from '../schema/argument-bounds.js'

/**
 * Arguments refused before anything runs, with BAD_USER_INPUT and no upstream call: a value a
 * field declares it cannot send upstream (src/schema/argument-bounds.ts), and an @stream
 * initialCount that is not 0 or more (the executor throws an uncoded error for it, after the
 * list's read). Only what would execute is checked: variables coerced, @skip/@include applied,
 * fragments merged, as graphql-js collects fields.
 */
export function useArgumentChecks(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (!mayNeedChecks(args.schema, args.document)) return
      const operation = getOperationAST(args.document, args.operationName)
      if (!operation) return
      const variables = getVariableValues(
        args.schema,
        operation.variableDefinitions ?? [],
        args.variableValues ?? {},
      )
      // Variables that do not coerce have been refused by the budget (use-operation-budget.ts).
      if (!variables.coerced) return
      const errors = argumentErrors(args.schema, args.document, operation, variables.coerced)
      if (errors.length > 0) setResultAndStopExecution({ errors })
    },
  }
}

/** Names of the fields that declare bounds, per schema. */
const boundedNames = new WeakMap<GraphQLSchema, Set<string>>()

/** Per document (yoga's parser cache hands the same object back for the same text). */
const mayNeed = new WeakMap<DocumentNode, boolean>()

/**
 * Whether a document has @stream or a field of a name that declares bounds: most documents have
 * neither, and skip the walk.
 */
function mayNeedChecks(schema: GraphQLSchema, document: DocumentNode): boolean {
  let found = mayNeed.get(document)
  if (found !== undefined) return found
  let names = boundedNames.get(schema)
  if (!names) {
    names = new Set()
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type)) continue
      for (const field of Object.values(type.getFields())) {
        if (boundsOf(field)) names.add(field.name)
      }
    }
    boundedNames.set(schema, names)
  }
  const bounded = names
  found = false
  visit(document, {
    Field(node) {
      if (bounded.has(node.name.value) || node.directives?.some(isStream)) found = true
    },
  })
  mayNeed.set(document, found)
  return found
}

const isStream = (directive: { name: { value: string } }) => directive.name.value === 'stream'

/** The refusals of an operation's arguments, each at its field, once per field node. */
function argumentErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): GraphQLError[] {
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null)
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition
  }
  const errors: GraphQLError[] = []
  const checked = new Set<FieldNode>()
  // Each selection set once per type, however often fragments spread it.
  const walked = new Map<SelectionSetNode, Set<string>>()
  const walk = (type: GraphQLNamedType, set: SelectionSetNode) => {
    const members = isAbstractType(type)
      ? schema.getPossibleTypes(type)
      : isObjectType(type)
        ? [type]
        : []
    const seen = walked.get(set) ?? new Set()
    walked.set(set, seen)
    for (const member of members) {
      if (seen.has(member.name)) continue
      seen.add(member.name)
      const definitions = member.getFields()
      for (const nodes of collectFields(schema, fragments, variables, member, set).values()) {
        for (const node of nodes) {
          const field = definitions[node.name.value]
          if (!field) continue
          if (!checked.has(node)) {
            checked.add(node)
            errors.push(...errorsAt(schema, field, node, variables))
          }
          if (node.selectionSet) walk(getNamedType(field.type), node.selectionSet)
        }
      }
    }
  }
  const root = schema.getRootType(operation.operation)
  if (root) walk(root, operation.selectionSet)
  return errors
}

function errorsAt(
  schema: GraphQLSchema,
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Record<string, unknown>,
): GraphQLError[] {
  const errors: GraphQLError[] = []
  const refuse = (argument: string, message: string) =>
    errors.push(refusal('BAD_USER_INPUT', message, { nodes: node, extensions: { argument } }))
  const bounds = boundsOf(field)
  if (bounds) {
    const args = getArgumentValues(field, node, variables)
    for (const [argument, check] of Object.entries(bounds)) {
      const message = check(args[argument], argument)
      if (message) refuse(argument, message)
    }
  }
  const stream = schema.getDirective('stream')
  const streamed = stream && getDirectiveValues(stream, node, variables)
  if (streamed && streamed.if !== false) {
    const count = streamed.initialCount
    if (typeof count !== 'number' || count < 0) {
      refuse('initialCount', '@stream’s initialCount must be 0 or more.')
    }
  }
  return errors
}
