import {
  BREAK,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLError,
  type GraphQLSchema,
  Kind,
  locatedError,
  parse,
  responsePathAsArray,
  type SelectionSetNode,
  type Source,
  visit,
} from 'graphql'
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit'
import { makeExecute, type Plugin } from 'graphql-yoga'
import { LRUCache } from 'lru-cache'
import type { Context } from './context.js'
import type { NulledBranches } from './nulled-branches.js'
import { UpstreamError } from './upstream/errors.js'

/**
 * Runs operations with graphql-jit, which compiles an operation into a function (measured: a
 * cached one-company query took 30–40 % less CPU than through graphql-js). graphql-js runs, as
 * before:
 * - a document the first time it comes (yoga's parser cache hands out the same document for the
 *   same text), so a document sent once costs no compilation;
 * - @defer or @stream: graphql-jit has no incremental delivery;
 * - a string literal holding graphql-jit's `__MAGIC_` markers: graphql-jit writes literal
 *   arguments into the code it generates and turns its Date marker back into code, so such a
 *   string would run on the server; literal arguments over MAX_LITERAL_CHARACTERS in all;
 * - any directive (@skip/@include: graphql-jit got them wrong on fragment spreads and on fields
 *   merged under one response key), and response keys with `_`, `idxN` or a capital first letter
 *   (see compilable());
 * - a non-null variable with a default: graphql-jit refuses it when it is not sent;
 * - more than MAX_EXPANDED_FIELDS fields once fragments are spread out: graphql-jit writes code
 *   for every path (measured: 35 fields took 1–5 ms to compile, 490 fields 13–19 ms, 2,000
 *   fields 80–100 ms), and fragments that spread each other twice per level make 2^60 paths;
 * - once compiling has taken COMPILE_MS_PER_SECOND in the current second, and for what
 *   graphql-jit cannot compile.
 * Compiled operations are kept for at most MAX_COMPILED_FIELDS fields in all (least recently used
 * go first): graphql-jit's code grows with the fields it answers (measured: about 6 KB per field,
 * 1.8 MB for a document of 297 fields), so that a stream of distinct documents bounds both the
 * CPU and the memory it can take. At most MAX_DOCUMENTS documents are remembered at all (those
 * seen once too), fewer than yoga's parser cache keeps, so none is kept only for this.
 */
const MAX_EXPANDED_FIELDS = 300
const COMPILE_MS_PER_SECOND = 50
const MAX_COMPILED_FIELDS = 5_000
const MAX_DOCUMENTS = 1_000
const MAX_LITERAL_CHARACTERS = 512

/**
 * `repeated`: a document is compiled the second time it comes. `always`: the first time (the test
 * suite runs once that way, so that every behaviour it checks is checked compiled too).
 */
export type CompiledExecution = 'repeated' | 'always'

/** A compiled operation and the fields it answers (its weight in the cache). */
interface Compiled {
  query: CompiledQuery
  fields: number
}

/** The operations compiled so far, within the limits above. */
export class CompiledOperations {
  /** Per document and operation name: seen once (undefined), compiled, or for graphql-js (null). */
  private readonly compiled: LRUCache<DocumentNode, Map<string, Compiled | null | undefined>>
  private readonly maxFields: number
  private second = 0
  private compilingMs = 0

  constructor(
    private readonly when: CompiledExecution = 'repeated',
    { fields = MAX_COMPILED_FIELDS, documents = MAX_DOCUMENTS } = {},
  ) {
    this.maxFields = fields
    this.compiled = new LRUCache({
      max: documents,
      maxSize: fields,
      // A document seen once or left to graphql-js weighs little; compiled ones by their fields.
      sizeCalculation: () => 1,
    })
  }

  /** The compiled operation to run, or undefined for graphql-js. */
  for(
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
  ): CompiledQuery | undefined {
    let byName = this.compiled.get(document)
    if (!byName) {
      byName = new Map()
      this.compiled.set(document, byName)
    }
    const name = operationName ?? ''
    if (this.when === 'repeated' && !byName.has(name)) {
      byName.set(name, undefined)
      return undefined
    }
    const known = byName.get(name)
    if (known !== undefined) return known?.query
    const now = performance.now()
    if (Math.floor(now / 1000) !== this.second) {
      this.second = Math.floor(now / 1000)
      this.compilingMs = 0
    }
    // Over this second's budget: graphql-js runs it, and a later request may compile it.
    if (this.compilingMs >= COMPILE_MS_PER_SECOND) return undefined
    let query: CompiledQuery | undefined
    const source = document.loc?.source
    const fields = source && compilable(document) ? expandedFields(document, name) : Infinity
    let weight = fields
    for (const compiled of byName.values()) weight += compiled?.fields ?? 0
    // A document heavier than the whole cache would drop itself and be compiled again and again.
    if (source && fields <= MAX_EXPANDED_FIELDS && weight <= this.maxFields) {
      // A fresh copy of the document: graphql-jit writes @skip/@include conditions onto the AST
      // nodes, and yoga's parser cache shares them with every other operation of the document.
      const result = compileQuery(schema, parse(source), operationName ?? undefined, {
        // @skip/@include on a fragment spread applies to that spread only (graphql-jit#197).
        useExperimentalPathBasedSkipInclude: true,
      })
      if (isCompiledQuery(result)) query = result
    }
    this.compilingMs += performance.now() - now
    byName.set(name, query ? { query, fields } : null)
    if (!query) return undefined
    // lru-cache weighs an entry again only when its value changes: set it anew.
    this.compiled.delete(document)
    this.compiled.set(document, byName, { size: weight })
    return query
  }
}

export function useCompiledExecution(when: CompiledExecution = 'repeated'): Plugin {
  const operations = new CompiledOperations(when)
  return {
    onExecute({ args, setExecuteFn }) {
      const query = operations.for(args.schema, args.document, args.operationName)
      if (!query) return
      const { nulledBranches } = args.contextValue as unknown as Context
      nulledBranches.waitsForEveryField = true
      const source = args.document.loc?.source
      setExecuteFn(
        makeExecute(async (execution) => {
          const result = await query.query(
            execution.rootValue,
            execution.contextValue,
            // graphql-jit reads a variable not sent as `variables[name]`: `$constructor` would
            // find Object's. No prototype, nothing inherited.
            Object.assign(Object.create(null), execution.variableValues),
          )
          return asGraphqlJsWould(result, source, nulledBranches.rootFailure)
        }),
      )
    },
  }
}

/** Whether nothing in the document keeps graphql-jit from running it as graphql-js would. */
function compilable(document: DocumentNode): boolean {
  let found = false
  const refuse = () => {
    found = true
    return BREAK
  }
  let literalCharacters = 0
  visit(document, {
    // @defer/@stream, and @skip/@include: graphql-jit dropped a fragment's second spread when
    // its first was skipped, and ran the selections of a skipped field merged with another
    // under one response key (41 upstream calls for an estimate of 1).
    Directive: refuse,
    // graphql-jit names each field's resolve info by its response path's keys joined with `_`
    // (list items `idxN`, type names between): keys that could make two paths one name would
    // hand one field another's info.
    Field: (node) => {
      const key = node.alias?.value ?? node.name.value
      return key !== '__typename' && (key.includes('_') || /^(idx\d|[A-Z])/.test(key))
        ? refuse()
        : undefined
    },
    // Literal arguments are written into the generated code once per response path: long ones
    // (one string, or a list of many short ones) would make a small document a large function.
    Argument: (node) => {
      if (node.value.kind === Kind.VARIABLE || !node.value.loc) return undefined
      literalCharacters += node.value.loc.end - node.value.loc.start
      return literalCharacters > MAX_LITERAL_CHARACTERS ? refuse() : undefined
    },
    StringValue: (node) => (node.value.includes('__MAGIC_') ? refuse() : undefined),
    // Written into the code as JSON, which has no Infinity: `$s: Float = 1e400` became null.
    FloatValue: (node) => (Number.isFinite(Number(node.value)) ? undefined : refuse()),
    IntValue: (node) => (Number.isFinite(Number(node.value)) ? undefined : refuse()),
    VariableDefinition: (node) => {
      if (node.type.kind === Kind.NON_NULL_TYPE && node.defaultValue) return refuse()
      if (node.defaultValue?.loc) {
        literalCharacters += node.defaultValue.loc.end - node.defaultValue.loc.start
      }
      return literalCharacters > MAX_LITERAL_CHARACTERS ? refuse() : undefined
    },
  })
  return !found
}

/**
 * Fields the operation named (every operation when none is) has once fragments are spread out,
 * counted no further than past the limit: each fragment is counted once, so this takes time
 * proportional to the document.
 */
export function expandedFields(document: DocumentNode, operationName?: string): number {
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
    if (
      definition.kind === Kind.OPERATION_DEFINITION &&
      (!operationName || definition.name?.value === operationName)
    ) {
      fields += count(definition.selectionSet)
    }
  }
  return Math.min(fields, tooMany)
}

/**
 * graphql-jit's result as graphql-js would give it:
 * - errors keep their locations: graphql-jit's carry `locations` but not the nodes they come from,
 *   and yoga rebuilds every error from its nodes or source positions when it serializes it;
 * - a value a scalar cannot represent is an unexpected error (masked in production), as with
 *   graphql-js, not a message quoting the upstream's value;
 * - no error of a read dropped when the operation ended early (a null reached the root, see
 *   NulledBranches): graphql-js answers before such reads end.
 * Only results with errors pay for it.
 */
function asGraphqlJsWould(
  result: ExecutionResult,
  source: Source | undefined,
  rootFailure: NulledBranches['rootFailure'],
): ExecutionResult {
  if (!result.errors?.length) return result
  const lineStarts = [0]
  for (const end of source?.body.matchAll(/\r\n|[\n\r]/g) ?? []) {
    lineStarts.push(end.index + end[0].length)
  }
  const errors: GraphQLError[] = []
  for (const error of result.errors) {
    if (error.originalError instanceof UpstreamError && error.originalError.cancelled) continue
    errors.push(error)
    if (!source || !error.locations || error.positions) continue
    // In place: a document whose 18,000 fields failed made as many errors, and new ones cost.
    Object.assign(error, {
      source,
      positions: error.locations.map(
        ({ line, column }) => (lineStarts[line - 1] ?? 0) + column - 1,
      ),
      ...(!error.originalError &&
        / cannot represent /.test(error.message) && {
          originalError: new TypeError(error.message),
        }),
    })
  }
  if (result.data === null && rootFailure) {
    // The failure that made data null: graphql-jit may have kept another error in its place.
    const path = responsePathAsArray(rootFailure.info.path)
    const at = JSON.stringify(path)
    if (!errors.some((error) => JSON.stringify(error.path) === at)) {
      errors.push(locatedError(rootFailure.error, rootFailure.info.fieldNodes, path))
    }
  }
  return { ...result, errors: errors.length > 0 ? errors : undefined }
}
