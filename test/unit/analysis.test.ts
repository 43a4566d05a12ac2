import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils'
import {
  GraphQLSchema,
  getIntrospectionQuery,
  getOperationAST,
  getVariableValues,
  parse,
} from 'graphql'
import { describe, expect, it } from 'vitest'
import { analyse, analysisCache } from '../../src/operation/analysis.js'
import { schema } from '../../src/schema/index.js'
import { bigList, claes, companyArgs, globalId, smartList } from '../support/fixtures.js'

/**
 * The analysis before execution: upstream calls and result objects (MAX_OPERATION_COST,
 * MAX_RESULT_OBJECTS) counted from the costs the fields declare, for the operation and the
 * variables execution will see; the fields the first payload sends. What the gateway refuses on
 * it: feature/budget.test.ts, feature/protection.test.ts.
 */

const at = companyArgs(claes)

/** The schema as yoga serves it: @defer and @stream added (@graphql-yoga/plugin-defer-stream). */
const served = new GraphQLSchema({
  ...schema.toConfig(),
  directives: [...schema.getDirectives(), GraphQLDeferDirective, GraphQLStreamDirective],
})

function analysisOf(source: string, variables: Record<string, unknown> = {}, name?: string) {
  const document = parse(source)
  const operation = getOperationAST(document, name)
  if (!operation) throw new Error('no operation')
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables)
  if (!coerced.coerced) throw new Error(String(coerced.errors))
  return analyse(served, document, operation, coerced.coerced)
}

const estimate = (source: string, variables?: Record<string, unknown>, name?: string) =>
  analysisOf(source, variables, name).calls

describe('the estimate', () => {
  it.each([
    [`{ company(${at}) { number } }`, 1],
    [`{ company(${at}) { name place } }`, 1],
    [`{ company(${at}) { name financials { totalCount } } }`, 1],
    // A company asked for by number: its statements read says whether it exists.
    [`{ company(${at}) { shareholders { name } participations { name } } }`, 2],
    // A lookalike's name comes from its own statements read.
    [`{ company(${at}) { lookalikes(first: 5) { nodes { name } } } }`, 7],
    [
      `{ company(${at}) { lookalikes(first: 5) { nodes { name lookalikes { totalCount } } } } }`,
      12,
    ],
    [`{ company(${at}) { lookalikes(first: 5) { nodes { name financials { totalCount } } } } }`, 7],
    [`{ company(${at}) { financials { totalCount } lookalikes(first: 5) { totalCount } } }`, 2],
    [`{ nodes(ids: ["a", "b"]) { ... on Company { lookalikes { totalCount } } } }`, 4],
    // A company's statements are one read, whatever pages and orders of them are asked.
    [`{ company(${at}) { financials(last: 3) { totalCount } } }`, 1],
    [
      `{ company(${at}) { name a: financials(first: 2) { totalCount } b: financials(last: 3, orderBy: PERIOD_END_ASC) { totalCount } } }`,
      1,
    ],
    ['{ lists { nodes { name } } }', 1],
    // Contacts are read whole; a filter reads them unfiltered too, for stable IDs.
    [`{ company(${at}) { contacts(first: 3) { nodes { id firstName } } } }`, 2],
    [`{ company(${at}) { contacts(q: "a") { nodes { id firstName } } } }`, 3],
    // A list's contacts: each one's ID takes its company's contacts.
    ['{ list(listId: 1) { contacts(first: 4) { nodes { firstName } } } }', 2],
    ['{ list(listId: 1) { contacts(first: 4) { nodes { id firstName } } } }', 6],
    [
      '{ lists(first: 4) { nodes { companies(first: 10) { nodes { name } } contacts(first: 2) { nodes { company { name } } } } } }',
      9,
    ],
    [
      `{ nodes(ids: ["${globalId('List', bigList.id)}", "${globalId('List', smartList.id)}"]) { id } }`,
      2,
    ],
    [
      '{ node(id: "x") { ... on Company { financials { totalCount } } ... on List { companies(first: 5) { nodes { name } } } } }',
      2,
    ],
    // The same field from two fragments runs once, as graphql-js merges them.
    [
      `{ company(${at}) { ...A ...B } } fragment A on Company { financials(first: 1) { totalCount } } fragment B on Company { name financials(first: 1) { totalCount } }`,
      1,
    ],
  ])('estimates %s as %i', (source, expected) => {
    expect(estimate(source)).toBe(expected)
  })

  it('counts only the operation that runs', () => {
    const source = 'query A { lists { totalCount } } query B { list(listId: 1) { name } }'
    expect(estimate(source, {}, 'B')).toBe(1)
    expect(estimate(source, {}, 'A')).toBe(1)
  })

  it('counts variable defaults and @include/@skip as execution will see them', () => {
    const page =
      'query($n: Int = 500) { list(listId: 1001) { companies(first: $n) { nodes { financials(first: 1) { totalCount } } } } }'
    expect(estimate(page)).toBe(1 + 1 + 500)
    expect(estimate(page, { n: 3 })).toBe(1 + 1 + 3)
    const skipped =
      'query($all: Boolean = false) { lists { totalCount } list(listId: 1) @include(if: $all) { name } }'
    expect(estimate(skipped)).toBe(1)
    expect(estimate(skipped, { all: true })).toBe(2)
  })

  it('counts the objects a response can hold: a normal page is far below the bound', () => {
    const objects = (source: string) => {
      const document = parse(source)
      const operation = getOperationAST(document, undefined)
      if (!operation) throw new Error('no operation')
      return analyse(schema, document, operation, {}).objects
    }
    // The list, its connection, and 500 × (edge + node).
    expect(
      objects('{ list(listId: 1) { companies(first: 500) { edges { node { number } } } } }'),
    ).toBe(1 + 1 + 500 * 2)
    expect(objects('{ lists { totalCount } }')).toBe(1)
  })

  it('counts introspection exactly: GraphiQL’s passes, thirty aliased fan-outs do not', () => {
    const graphiql = analysisOf(
      getIntrospectionQuery({
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
        oneOf: true,
      }),
    ).objects
    expect(graphiql).toBeGreaterThan(500)
    expect(graphiql).toBeLessThan(20_000)
    // Each type, each of its fields and each level of `ofType` counted.
    const types = Object.keys(schema.getTypeMap()).length
    expect(analysisOf('{ __schema { types { name } } }').objects).toBe(1 + types)
    // Thirty aliases of a fan-out through each field's type and its fields: the attack.
    const fields = 'fields { name type { name ofType { name } } }'
    const fragment = `fragment F on __Type { name fields { name type { name ${fields} ofType { name ${fields} } } } }`
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: __schema { types { ...F } }`)
    const fanOut = `{ ${aliases.join(' ')} } ${fragment}`
    expect(analysisOf(fanOut).objects).toBeGreaterThan(20_000)
    expect(analysisOf('{ __type(name: "Company") { name fields { name } } }').objects).toBe(
      1 + Object.keys((schema.getType('Company') as { getFields(): object }).getFields()).length,
    )
  })

  it('tells the fields the first payload sends from those of a deferred part', () => {
    const source = `{ company(${at}) { name ... @defer { lookalikes { totalCount } } ...F } } fragment F on Company { shareholders { name } ... @defer(if: false) { place } }`
    const { firstPart, inParts } = analysisOf(source)
    const names = [...firstPart].map((node) => node.name.value).sort()
    expect(names).toEqual(['company', 'name', 'name', 'place', 'shareholders'])
    expect(inParts).toBe(true)
    expect(
      analysisOf(
        `query($d: Boolean = false) { company(${at}) { ... @include(if: $d) { ... @defer { name } } } }`,
      ).inParts,
    ).toBe(false)
  })

  it('analyses each document and shape of variables once', () => {
    let runs = 0
    const remembered = analysisCache()
    const document = parse(
      'query($n: Int, $c: String) { lists(first: $n, after: $c) { totalCount } }',
    )
    const operation = getOperationAST(document, undefined)
    if (!operation) throw new Error('no operation')
    const count = (variables: Record<string, unknown>) => {
      const before = remembered(schema, document, operation, variables)
      runs = before === remembered(schema, document, operation, variables) ? runs : runs + 1
      return before
    }
    const first = count({ n: 5, c: 'x' })
    expect(remembered(schema, document, operation, { n: 5, c: 'y' })).toBe(first)
    expect(remembered(schema, document, operation, { n: 6, c: 'y' })).not.toBe(first)
    expect(runs).toBe(0)
  })
})
