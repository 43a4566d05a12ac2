import { getOperationAST, getVariableValues, parse } from 'graphql'
import { describe, expect, it } from 'vitest'
import { estimateOperation } from '../../src/operation/cost-estimate.js'
import { rememberEstimates } from '../../src/operation/use-operation-budget.js'
import { schema } from '../../src/schema/index.js'
import { bigList, claes, companyArgs, globalId, smartList } from '../support/fixtures.js'

/**
 * The estimate before execution (MAX_OPERATION_COST, MAX_RESULT_OBJECTS): upstream calls and
 * result objects counted from the costs the fields declare, for the operation and the variables
 * execution will see. What the gateway refuses on it: feature/budget.test.ts.
 */

const at = companyArgs(claes)

function estimate(source: string, variables: Record<string, unknown> = {}, name?: string) {
  const document = parse(source)
  const operation = getOperationAST(document, name)
  if (!operation) throw new Error('no operation')
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables)
  if (!coerced.coerced) throw new Error(String(coerced.errors))
  return estimateOperation(schema, document, operation, coerced.coerced).calls
}

describe('the estimate', () => {
  it.each([
    [`{ company(${at}) { number } }`, 1],
    [`{ company(${at}) { name place } }`, 1],
    [`{ company(${at}) { name financials { totalCount } } }`, 1],
    // A company asked for by number and not for its statements: when its reads fail, the read
    // of its statements says whether it exists (one more, the most it can take).
    [`{ company(${at}) { shareholders { name } participations { name } } }`, 2],
    [`{ company(${at}) { lookalikes(first: 5) { nodes { name } } } }`, 7],
    // A lookalike's own reads refused, its statements name it: one more each.
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
    ['{ lists(first: 600) { nodes { name } } }', 0],
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
      return estimateOperation(schema, document, operation, {}).objects
    }
    // The list, its connection, and 500 × (edge + node).
    expect(
      objects('{ list(listId: 1) { companies(first: 500) { edges { node { number } } } } }'),
    ).toBe(1 + 1 + 500 * 2)
    expect(objects('{ lists { totalCount } }')).toBe(1)
  })

  it('estimates each document and variables once', () => {
    let runs = 0
    const remembered = rememberEstimates((...args) => {
      runs++
      return estimateOperation(...args)
    })
    const document = parse('query($n: Int) { lists(first: $n) { totalCount } }')
    const operation = getOperationAST(document, undefined)
    if (!operation) throw new Error('no operation')
    expect(remembered(schema, document, operation, { n: 5 }).calls).toBe(1)
    expect(remembered(schema, document, operation, { n: 5 }).calls).toBe(1)
    expect(runs).toBe(1)
    remembered(schema, document, operation, { n: 6 })
    remembered(schema, parse('query($n: Int) { lists(first: $n) { totalCount } }'), operation, {
      n: 5,
    })
    expect(runs).toBe(3)
  })
})
