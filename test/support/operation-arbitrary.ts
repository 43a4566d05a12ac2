import fc from 'fast-check'
import {
  type GraphQLField,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isInterfaceType,
  isLeafType,
  parse,
  validate,
} from 'graphql'
import type { Operation } from './path-states.js'

/**
 * Random operations valid against the served schema, with arguments from the demo's data:
 * fields picked from Query down, one to three per selection (an aliased second copy now and
 * then, with arguments of its own), pages of a few items so that most fit the budget, inline and
 * named fragments. An operation over a limit is still a fine case (its refusal must be the same
 * on every path), but most are answered.
 */

/** Argument values the operations draw from, as GraphQL literals. */
export interface DemoValues {
  /** `country: BE, number: "…"` of companies the demo knows, and of some it does not. */
  companies: string[]
  listIds: number[]
  /** Global IDs of Lists, Companies and Contacts, and some that are malformed or unknown. */
  nodeIds: string[]
  /** Cursors of some connections (elsewhere they are refused, which is a case too). */
  cursors: string[]
  /** Filter values of contacts: departments, seniorities and official roles. */
  filters: { departments: string[]; seniorities: string[]; officialRoles: string[] }
}

type Selection =
  | { kind: 'field'; name: string; alias?: string; args: string; selections?: Selection[] }
  | { kind: 'inline'; type: string; selections: Selection[] }
  | { kind: 'spread'; type: string; selections: Selection[] }

const literal = (value: unknown): string =>
  Array.isArray(value) ? `[${value.map(literal).join(', ')}]` : JSON.stringify(value)
const enumValue = (value: string) => ({ enum: value })
const print = (value: unknown): string =>
  typeof value === 'object' && value !== null && 'enum' in value
    ? String((value as { enum: string }).enum)
    : literal(value)

/** Weights for how many fields a selection holds: mostly one or two. */
const breadth = fc.oneof(
  { arbitrary: fc.constant(1), weight: 4 },
  { arbitrary: fc.constant(2), weight: 4 },
  { arbitrary: fc.constant(3), weight: 2 },
)

export function operationArbitrary(
  schema: GraphQLSchema,
  values: DemoValues,
  maxDepth = 7,
): fc.Arbitrary<Operation> {
  const size = fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 3 }), weight: 9 },
    { arbitrary: fc.constantFrom(501, -1), weight: 1 },
  )
  const cursor = fc.constantFrom(...values.cursors, 'bm90IGEgY3Vyc29y')
  // Forward or backward, a cursor now and then, the default (20) rarely, both at once rarely.
  const paging = fc.oneof(
    { arbitrary: fc.record({ first: size }), weight: 6 },
    { arbitrary: fc.record({ last: size }), weight: 4 },
    { arbitrary: fc.record({ first: size, after: cursor }), weight: 2 },
    { arbitrary: fc.record({ last: size, before: cursor }), weight: 2 },
    { arbitrary: fc.constant({}), weight: 1 },
    { arbitrary: fc.record({ first: size, last: size }), weight: 1 },
  )
  const some = (pool: string[]) => fc.subarray(pool, { minLength: 1, maxLength: 2 })
  /** Left out, null (as Relay sends a variable it does not set) or a value. */
  const optional = <T>(arbitrary: fc.Arbitrary<T>) =>
    fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 2 },
      { arbitrary: fc.constant(null), weight: 1 },
      { arbitrary, weight: 3 },
    )
  /** The arguments of a field, by its type and name, as `name: value` pairs. */
  const argsOf: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
    // Country and number go together: one literal pair, written as it is.
    'Query.company': fc.constantFrom(...values.companies).map((text) => ({ text })),
    'Query.list': fc.record({ listId: fc.constantFrom(...values.listIds) }),
    'Query.lists': fc.record(
      { paging, kind: optional(fc.constantFrom('OVERVIEW', 'STATIC', 'SMART').map(enumValue)) },
      { requiredKeys: ['paging'] },
    ),
    'Query.node': fc.record({ id: fc.constantFrom(...values.nodeIds) }),
    'Query.nodes': fc.record({
      ids: fc.array(fc.constantFrom(...values.nodeIds), { minLength: 1, maxLength: 3 }),
    }),
    'List.companies': fc.record(
      { paging, view: optional(fc.constantFrom('ALL', 'SAVED', 'ARCHIVED', 'NEW').map(enumValue)) },
      { requiredKeys: ['paging'] },
    ),
    'Company.lookalikes': fc.record(
      { paging, minScore: optional(fc.constantFrom(0.5, 0.8, 1.5)) },
      { requiredKeys: ['paging'] },
    ),
    'Company.contacts': fc.record(
      {
        paging,
        q: optional(fc.constantFrom('a', 'an', 'zz')),
        onlyOfficialRoles: optional(fc.boolean()),
        departments: optional(some(values.filters.departments)),
        seniorities: optional(some(values.filters.seniorities)),
        officialRoles: optional(some(values.filters.officialRoles)),
      },
      { requiredKeys: ['paging'] },
    ),
  }
  const argumentsOf = (type: string, field: GraphQLField<unknown, unknown>) => {
    const given = argsOf[`${type}.${field.name}`]
    if (given) return given.map(printArgs)
    // Every other field with arguments is a connection that only pages.
    return field.args.length > 0 ? fc.record({ paging }).map(printArgs) : fc.constant('')
  }

  const memo = new Map<string, fc.Arbitrary<Selection[]>>()
  const selectionsOf = (type: GraphQLNamedType, depth: number): fc.Arbitrary<Selection[]> => {
    const key = `${type.name}:${depth}`
    let arbitrary = memo.get(key)
    if (!arbitrary) {
      arbitrary = fc
        .constant(null)
        .chain(() =>
          isInterfaceType(type) ? nodeSelections(type, depth) : objectSelections(type, depth),
        )
      memo.set(key, arbitrary)
    }
    return arbitrary
  }
  const field = (
    type: GraphQLObjectType,
    definition: GraphQLField<unknown, unknown>,
    depth: number,
  ) => {
    const named = getNamedType(definition.type)
    return fc.record({
      kind: fc.constant('field' as const),
      name: fc.constant(definition.name),
      args: argumentsOf(type.name, definition),
      selections: isLeafType(named) ? fc.constant(undefined) : selectionsOf(named, depth - 1),
    })
  }
  const objectSelections = (type: GraphQLNamedType, depth: number): fc.Arbitrary<Selection[]> => {
    if (!(type instanceof GraphQLObjectType)) throw new Error(`${type.name} is not an object type`)
    const fields = Object.values(type.getFields()).filter(
      (f) => depth > 1 || isLeafType(getNamedType(f.type)),
    )
    const names = fields.map((f) => f.name)
    // __typename of Query answers the same whatever the path: no operation of its own.
    if (type !== schema.getQueryType()) names.push('__typename')
    return breadth.chain((count) =>
      fc
        .uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: count })
        .chain((picked) =>
          fc.tuple(
            ...picked.map((name) => {
              const definition = fields.find((f) => f.name === name)
              if (!definition) return fc.constant([{ kind: 'field', name, args: '' } as Selection])
              const one = field(type, definition, depth)
              // Sometimes the same field again under an alias, with arguments of its own.
              return fc
                .tuple(
                  one,
                  fc.oneof(
                    { arbitrary: fc.constant(null), weight: 5 },
                    { arbitrary: one, weight: 1 },
                  ),
                )
                .map(([first, again]) =>
                  again ? [first, { ...again, alias: `again_${name}` }] : [first],
                )
            }),
          ),
        )
        .chain((groups) => wrapped(type.name, groups.flat())),
    )
  }
  /** Node: its id or __typename, and fragments on some of the types that implement it. */
  const nodeSelections = (type: GraphQLInterfaceType, depth: number) => {
    const implementations = schema.getPossibleTypes(type)
    return fc
      .tuple(
        fc.subarray(['id', '__typename'], { minLength: 1 }),
        fc.subarray([...implementations], { minLength: 0, maxLength: 2 }),
      )
      .chain(([own, types]) =>
        fc.tuple(...types.map((t) => objectSelections(t, depth))).map((parts) => [
          ...own.map((name): Selection => ({ kind: 'field', name, args: '' })),
          ...parts.map(
            (selections, i): Selection => ({
              kind: 'inline',
              type: types[i]?.name ?? '',
              selections,
            }),
          ),
        ]),
      )
  }
  /**
   * A selection as it is, or inside an inline fragment or a named one, or both as it is and
   * again in a fragment (the same fields twice, which execution merges into one).
   */
  const wrapped = (type: string, selections: Selection[]): fc.Arbitrary<Selection[]> =>
    fc.oneof(
      { arbitrary: fc.constant(selections), weight: 6 },
      { arbitrary: fc.constant<Selection[]>([{ kind: 'inline', type, selections }]), weight: 1 },
      { arbitrary: fc.constant<Selection[]>([{ kind: 'spread', type, selections }]), weight: 1 },
      {
        arbitrary: fc.constant<Selection[]>([...selections, { kind: 'spread', type, selections }]),
        weight: 1,
      },
    )

  const query = schema.getQueryType()
  if (!query) throw new Error('the schema has no Query type')
  // Fields of one name on different types of a fragment must agree in type (List.name is
  // String!, Company.name String): operations graphql-js finds invalid are not made, nor those
  // near the gateway's shape limits (MAX_TOKENS, MAX_ALIASES).
  return objectSelections(query, maxDepth)
    .map(printOperation)
    .filter(
      ({ query }) =>
        query.length < 4000 &&
        (query.match(/\bagain_/g) ?? []).length <= 15 &&
        validate(schema, parse(query)).length === 0,
    )
}

function printArgs(args: Record<string, unknown>): string {
  const { paging, text, ...rest } = args as { paging?: object; text?: string }
  const pairs = Object.entries({ ...paging, ...rest })
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}: ${print(value)}`)
  if (text) pairs.unshift(text)
  return pairs.length > 0 ? `(${pairs.join(', ')})` : ''
}

/** The operation's text, named fragments after it; it shows as that text in fast-check's report. */
function printOperation(selections: Selection[]): Operation {
  const fragments: string[] = []
  const printSet = (set: Selection[], indent: string): string =>
    set
      .map((s) => {
        const inner = (children: Selection[]) => `{\n${printSet(children, `${indent}  `)}${indent}}`
        if (s.kind === 'field') {
          const head = `${s.alias ? `${s.alias}: ` : ''}${s.name}${s.args}`
          return `${indent}${head}${s.selections ? ` ${inner(s.selections)}` : ''}\n`
        }
        if (s.kind === 'inline') return `${indent}... on ${s.type} ${inner(s.selections)}\n`
        // Its place is taken first: the fragments it spreads are printed while it is.
        const index = fragments.push('') - 1
        fragments[index] = `fragment F${index} on ${s.type} {\n${printSet(s.selections, '  ')}}\n`
        return `${indent}...F${index}\n`
      })
      .join('')
  const body = `query Generated {\n${printSet(selections, '  ')}}\n`
  const query = [body, ...fragments].join('\n')
  return { query, [fc.toStringMethod]: () => query } as Operation
}
