import {
  BREAK,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  type SelectionSetNode,
  type Source,
  visit,
} from 'graphql'
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit'
import { makeExecute, type Plugin } from 'graphql-yoga'

/**
 * Runs each operation with graphql-jit, which compiles it once into a function (measured: a
 * cached one-company query took 30–40 % less CPU than through graphql-js). An operation it
 * should not run goes to graphql-js as before:
 * - @defer or @stream: graphql-jit has no incremental delivery;
 * - more than MAX_EXPANDED_FIELDS fields once its fragments are spread out: graphql-jit writes
 *   code for every path, so fragments that spread each other twice per level (2^60 paths from a
 *   small document, refused by nothing else since its cost is 1) would hold the server;
 * - anything graphql-jit cannot compile.
 * Compiled per document and operation name, as long as yoga's parser cache keeps the document.
 */
const MAX_EXPANDED_FIELDS = 2000

export function useCompiledExecution(): Plugin {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>()

  const compiledFor = (
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
  ) => {
    let byName = compiled.get(document)
    if (!byName) {
      byName = new Map()
      compiled.set(document, byName)
    }
    const name = operationName ?? ''
    let query = byName.get(name)
    if (query === undefined) {
      query = null
      if (!isIncremental(document) && expandedFields(document) <= MAX_EXPANDED_FIELDS) {
        const result = compileQuery(schema, document, operationName ?? undefined, {
          // @skip/@include on a fragment spread applies to that spread only (graphql-jit#197).
          useExperimentalPathBasedSkipInclude: true,
        })
        if (isCompiledQuery(result)) query = result
      }
      byName.set(name, query)
    }
    return query
  }

  return {
    onExecute({ args, setExecuteFn }) {
      const query = compiledFor(args.schema, args.document, args.operationName)
      if (!query) return
      const source = args.document.loc?.source
      setExecuteFn(
        makeExecute(async (execution) => {
          const result = await query.query(
            execution.rootValue,
            execution.contextValue,
            execution.variableValues,
          )
          return source ? located(result, source) : result
        }),
      )
    },
  }
}

/** Whether the document asks for incremental delivery anywhere. */
function isIncremental(document: DocumentNode): boolean {
  let found = false
  visit(document, {
    Directive(node) {
      if (node.name.value === 'defer' || node.name.value === 'stream') {
        found = true
        return BREAK
      }
    },
  })
  return found
}

/**
 * Fields a document has once its fragments are spread out, counted no further than past the
 * limit: each fragment is counted once, so this takes time proportional to the document.
 */
export function expandedFields(document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition)
    }
  }
  const tooMany = MAX_EXPANDED_FIELDS + 1
  const ofFragment = new Map<string, number>()
  const count = (set: SelectionSetNode | undefined): number => {
    let fields = 0
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value
        let inFragment = ofFragment.get(name)
        if (inFragment === undefined) {
          // A cycle (which validation refuses anyway) counts as too many.
          ofFragment.set(name, tooMany)
          inFragment = count(fragments.get(name)?.selectionSet)
          ofFragment.set(name, inFragment)
        }
        fields += inFragment
      } else {
        fields += (selection.kind === Kind.FIELD ? 1 : 0) + count(selection.selectionSet)
      }
      if (fields >= tooMany) return tooMany
    }
    return fields
  }
  let fields = 0
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) fields += count(definition.selectionSet)
  }
  return Math.min(fields, tooMany)
}

/**
 * graphql-jit's errors carry `locations` but not the nodes they come from, and yoga rebuilds
 * every error from its nodes or source positions when it serializes it: without this, errors
 * would lose their locations. Only results with errors pay for it.
 */
function located(result: ExecutionResult, source: Source): ExecutionResult {
  if (!result.errors?.some((error) => error.locations && !error.positions)) return result
  const lineStarts = [0]
  for (const end of source.body.matchAll(/\r\n|[\n\r]/g)) lineStarts.push(end.index + end[0].length)
  const errors = result.errors.map((error) =>
    error.locations && !error.positions
      ? new GraphQLError(error.message, {
          source,
          positions: error.locations.map(
            ({ line, column }) => (lineStarts[line - 1] ?? 0) + column - 1,
          ),
          path: error.path,
          originalError: error.originalError,
          extensions: error.extensions,
        })
      : error,
  )
  return { ...result, errors }
}
