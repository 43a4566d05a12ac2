import {
  BREAK,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  getDirectiveValues,
  getOperationAST,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  visit,
} from 'graphql'
import type { Plugin, YogaInitialContext } from 'graphql-yoga'
import { refusal } from '../errors/graphql-errors.js'
import { acceptedTypes, INCREMENTAL_MEDIA_TYPES } from './use-accept-check.js'

/**
 * An operation with @defer or @stream is answered part by part, which only multipart/mixed and
 * text/event-stream can carry. Asked with an Accept that admits neither (graphql-request's
 * `application/json`), it is refused before it runs: yoga would run it in full, reads and all,
 * then answer 406 with an empty body. Only what this request runs counts: the operation it
 * names, and @defer/@stream whose `if` is true with its variables.
 */
export function useIncrementalAccept(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const { request } = args.contextValue as YogaInitialContext
      if (!mayDeliverInParts(args.document)) return
      const accepted = acceptedTypes(request.headers.get('accept'))
      if (accepted.some((type) => INCREMENTAL_MEDIA_TYPES.includes(type))) return
      const operation = getOperationAST(args.document, args.operationName)
      if (
        !operation ||
        !deliversInParts(args.schema, args.document, operation, args.variableValues)
      )
        return
      setResultAndStopExecution({
        errors: [
          refusal(
            'NOT_ACCEPTABLE',
            `@defer and @stream answer in parts: send Accept: ${INCREMENTAL_MEDIA_TYPES.join(' or ')}, or leave them out.`,
          ),
        ],
      })
    },
  }
}

const isIncremental = (name: string) => name === 'defer' || name === 'stream'

/** Per document (yoga's parser cache hands the same object back for the same text). */
const mayBeInParts = new WeakMap<DocumentNode, boolean>()

/** Whether a document has @defer or @stream at all: most have neither, and skip the walk. */
function mayDeliverInParts(document: DocumentNode): boolean {
  let found = mayBeInParts.get(document)
  if (found !== undefined) return found
  found = false
  visit(document, {
    Directive(node) {
      if (!isIncremental(node.name.value)) return
      found = true
      return BREAK
    },
  })
  mayBeInParts.set(document, found)
  return found
}

/**
 * Whether the operation, with these variables, defers or streams anything: a directive in its
 * selections or the fragments they spread (each once), its `if` not false.
 */
function deliversInParts(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variableValues: Record<string, unknown> | null | undefined,
): boolean {
  const variables = getVariableValues(
    schema,
    operation.variableDefinitions ?? [],
    variableValues ?? {},
  ).coerced
  // Variables that do not coerce are refused by the budget (use-operation-budget.ts).
  if (!variables) return false
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition)
    }
  }
  const seen = new Set<string>()
  const sets: SelectionSetNode[] = [operation.selectionSet]
  for (let set = sets.pop(); set; set = sets.pop()) {
    for (const selection of set.selections) {
      for (const directive of selection.directives ?? []) {
        if (!isIncremental(directive.name.value)) continue
        const definition = schema.getDirective(directive.name.value)
        const values = definition && getDirectiveValues(definition, selection, variables)
        if (values?.if !== false) return true
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value)
        if (fragment && !seen.has(fragment.name.value)) {
          seen.add(fragment.name.value)
          sets.push(fragment.selectionSet)
        }
      } else if (selection.selectionSet) {
        sets.push(selection.selectionSet)
      }
    }
  }
  return false
}
