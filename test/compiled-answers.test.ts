import { describe, expect, it } from 'vitest'
import { bothExecutors } from './support/executors.js'
import { startStack } from './support/stack.js'

/**
 * Requests from a hostile review of compiled execution (src/compiled-execution.ts): each is sent
 * twice (compiled the second time) and through graphql-js, and both answer the same, with the
 * same upstream calls. Errors are compared in path order: the spec gives them none, and
 * graphql-jit lists errors of nullable fields before those of non-null ones.
 */
const stack = await startStack({ upstreamToken: 'demo-token' })
const plain = stack.replica({ compiledExecution: 'never' })
const { demo } = stack
const { data } = demo
const list = data.lists.find((l) => l.amountOfCompanies >= 40)
const company = data.companies.find(
  (c) =>
    c.name !== undefined &&
    data.financialsOf(c).length >= 5 &&
    data.relationshipsOf(c).parents.length > 0,
)
if (!list || !company) throw new Error('demo data')
const at = `country: ${company.country}, number: "${company.companyNumber}"`
const globalId = (type: string, key: string) => Buffer.from(`${type}:${key}`).toString('base64url')
const cid = globalId('Company', `${company.country}:${company.companyNumber}`)
const lid = globalId('List', String(list.id))

type Answer = Awaited<ReturnType<typeof stack.post>>

/** The answer with its errors in path order. */
const inPathOrder = (answer: Answer): Answer => {
  const errors =
    answer.body.errors &&
    [...answer.body.errors].sort((a, b) =>
      String(JSON.stringify(a.path)).localeCompare(String(JSON.stringify(b.path))),
    )
  return errors ? { ...answer, body: { ...answer.body, errors } } : answer
}

const both = bothExecutors(stack, plain)

const cases: [string, string, Record<string, unknown> | undefined][] = [
  [
    'merged field error locations (direct + fragment)',
    `{ company(country: BE, number: "x") { name } ...F }\nfragment F on Query {\n  company(country: BE, number: "x") { number } }`,
    undefined,
  ],
  [
    'merged field error locations (inline fragment)',
    `{ company(country: BE, number: "x") { name } ... on Query { company(country: BE, number: "x") { number } } }`,
    undefined,
  ],
  [
    'field @include false plus same field from fragment',
    `query($no: Boolean!) { company(${at}) { name @include(if: $no) ...F } } fragment F on Company { name }`,
    { no: false },
  ],
  [
    'field @skip true plus plain same field',
    `{ company(${at}) { name @skip(if: true) name number } }`,
    undefined,
  ],
  [
    'field @skip on first, fragment include',
    `query($y: Boolean!) { company(${at}) { number @skip(if: $y) ... on Company { number @include(if: $y) } } }`,
    { y: true },
  ],
  [
    'nested skip on merged parent',
    `query($y: Boolean!) { company(${at}) @skip(if: $y) { name } company(${at}) { number } }`,
    { y: true },
  ],
  [
    'nested skip on merged parent 2',
    `query($y: Boolean!) { company(${at}) { name } company(${at}) @skip(if: $y) { number } }`,
    { y: true },
  ],
  ['ID variable given as integer', `query($id: ID!) { node(id: $id) { id } }`, { id: 12345 }],
  [
    'ids list single value coercion',
    `query($ids: [ID!]!) { nodes(ids: $ids) { id __typename } }`,
    { ids: cid },
  ],
  [
    'ids list with variable item',
    `query($a: ID!, $b: ID!) { nodes(ids: [$a, "zz", $b]) { id ... on Company { name } } }`,
    { a: cid, b: lid },
  ],
  [
    'departments single string',
    `query($d: [String!]) { company(${at}) { contacts(first: 2, departments: $d) { totalCount } } }`,
    { d: 'Sales' },
  ],
  [
    'enum variable for kind',
    `query($k: ListKind) { lists(first: 2, kind: $k) { totalCount } }`,
    { k: 'SMART' },
  ],
  [
    'enum variable explicit null over default',
    `query($k: ListKind) { lists(first: 2, kind: $k) { totalCount } }`,
    { k: null },
  ],
  ['enum literal null over default', `{ lists(first: 2, kind: null) { totalCount } }`, undefined],
  [
    'nullable variable with default unsent in non-null position',
    `query($n: Int = ${list.id}) { list(listId: $n) { name } }`,
    undefined,
  ],
  [
    'Float minScore as Int variable',
    `query($s: Float) { company(${at}) { lookalikes(first: 2, minScore: $s) { totalCount } } }`,
    { s: 0 },
  ],
  [
    'onlyOfficialRoles variable not sent, default false',
    `query($o: Boolean) { company(${at}) { contacts(first: 1, onlyOfficialRoles: $o) { totalCount } } }`,
    undefined,
  ],
  [
    'aliased introspection',
    `{ s: __schema { queryType { name } types { name kind } } }`,
    undefined,
  ],
  [
    'aliased __type',
    `{ t: __type(name: "Company") { name fields { name args { name defaultValue type { name kind ofType { name kind ofType { name } } } } } } }`,
    undefined,
  ],
  ['__type unknown', `{ t: __type(name: "Nope") { name } }`, undefined],
  [
    'typename on interface and aliases of builtins',
    `{ node(id: "${cid}") { __typename t: __typename id ... on Company { constructor: name valueOf: number } } }`,
    undefined,
  ],
  [
    'node with bad id and list id',
    `{ a: node(id: "nope") { id } b: node(id: "${lid}") { __typename ... on List { listId name } } }`,
    undefined,
  ],
  [
    'nodes duplicate ids and bad',
    `{ nodes(ids: ["${cid}", "${cid}", "bad", "${globalId('Company', 'BE:0000000097')}"]) { __typename ... on Company { name financials(first: 1) { totalCount } } } }`,
    undefined,
  ],
  [
    'bad first (negative) nested in list',
    `{ list(listId: ${list.id}) { companies(first: 2) { nodes { number financials(first: -1) { totalCount } } } } }`,
    undefined,
  ],
  [
    'unknown list',
    `{ list(listId: 999999) { name companies(first: 1) { totalCount } } }`,
    undefined,
  ],
  [
    'skip with variable default true unsent',
    `query($v: Boolean = true) { company(${at}) { name @skip(if: $v) number } }`,
    undefined,
  ],
  [
    'toString alias and hasOwnProperty',
    `{ toString: lists(first: 1) { hasOwnProperty: totalCount } }`,
    undefined,
  ],
  [
    'variable named constructor not sent',
    `query($constructor: String) { company(${at}) { contacts(first: 1, q: $constructor) { totalCount } } }`,
    undefined,
  ],
  [
    'variable named toString with default',
    `query($toString: Int = 1) { lists(first: $toString) { totalCount } }`,
    undefined,
  ],
  [
    'skipped merged field: its fragment spread still runs',
    `query($a: Boolean!) { company(${at}) @include(if: $a) { ...F } company(${at}) { number } } fragment F on Company { name }`,
    { a: false },
  ],
  [
    'skipped merged field: its inline fragment still runs',
    `{ company(${at}) @skip(if: true) { ... on Company { name } } company(${at}) { number } }`,
    undefined,
  ],
  [
    'skipped merged field: refused argument inside fragment',
    `{ company(${at}) @skip(if: true) { ... on Company { financials(first: -1) { totalCount } } } company(${at}) { number } }`,
    undefined,
  ],
  [
    'skipped merged field: upstream reads inside fragment',
    `{ company(${at}) @skip(if: true) { ... on Company { shareholders { name } financials(first: 2) { totalCount } } } company(${at}) { number } }`,
    undefined,
  ],
  [
    'error order: non-null error first, nullable error later',
    `{ a: company(${at}) { financials(first: -1) { totalCount } } b: company(country: BE, number: "0000000097") { name } }`,
    undefined,
  ],
  [
    'error order: nullable list miss then non-null',
    `{ b: list(listId: 999999) { name } a: company(${at}) { financials(first: -1) { totalCount } } }`,
    undefined,
  ],
  [
    'skipped merged field: direct children (prefetch sees skipped node)',
    `{ company(${at}) @skip(if: true) { shareholders { name } financials(first: 3) { totalCount } } company(${at}) { number } }`,
    undefined,
  ],
  ['alias __typename on a real field', `{ company(${at}) { __typename: name number } }`, undefined],
  [
    'alias __typename on interface field',
    `{ node(id: "${cid}") { __typename: id } nodes(ids: ["${cid}", "${lid}"]) { __typename: id } }`,
    undefined,
  ],
  [
    'alias __typename on list field under nulled',
    `{ company(${at}) { __typename: financials(first: -1) { totalCount } } }`,
    undefined,
  ],
  [
    'realistic: optional fragment on a repeated field, $w false',
    `query($w: Boolean!) { company(${at}) { ...Basic } company(${at}) @include(if: $w) { ...Owners } } fragment Basic on Company { name } fragment Owners on Company { shareholders { name percentage } }`,
    { w: false },
  ],
  [
    'skip inside abstract node',
    `query($t: Boolean!) { node(id: "${cid}") { ... on Company { name @skip(if: $t) number shareholders @include(if: $t) { name } } } }`,
    { t: true },
  ],
  [
    'skip inside nodes list',
    `query($t: Boolean!) { nodes(ids: ["${cid}", "${lid}"]) { id @skip(if: $t) ... on Company { name @skip(if: $t) number } ... on List { name @include(if: $t) listId } } }`,
    { t: true },
  ],
  [
    'skip inside list under node',
    `query($t: Boolean!) { node(id: "${cid}") { ... on Company { lookalikes(first: 2) { nodes { name @skip(if: $t) number financials(first: 1) @include(if: $t) { totalCount } } } } } }`,
    { t: false },
  ],
  [
    'skip on merged field inside list items',
    `query($t: Boolean!) { lists(first: 3) { nodes { name @skip(if: $t) ...L } } } fragment L on List { name listId }`,
    { t: true },
  ],
  [
    'skip merged parent inside list items, fragment',
    `query($t: Boolean!) { lists(first: 2) { nodes { companies(first: 1) @skip(if: $t) { ...C } companies(first: 1) { totalCount } } } } fragment C on ListCompanyConnection { nodes { number } }`,
    { t: true },
  ],
]

describe('compiled and graphql-js answers', () => {
  it.each(cases)('%s', async (_n, query, variables) => {
    const { compiled, reference, compiledCalls, referenceCalls } = await both(query, variables)
    expect(inPathOrder(compiled)).toEqual(inPathOrder(reference))
    expect(compiledCalls).toEqual(referenceCalls)
  })
})

describe('GET', () => {
  it('answers a GET as graphql-js does', async () => {
    const query = `{ company(${at}) { name number financials(first: 2) { totalCount } } bad: company(country: BE, number: "x") { name } }`
    const get = async (gw: typeof stack) => {
      const r = await gw.gateway.yoga.fetch(
        `http://gateway.test/graphql?query=${encodeURIComponent(query)}`,
        {
          headers: { accept: 'application/json', authorization: 'Bearer demo-token' },
        },
      )
      return { status: r.status, body: await r.json() }
    }
    await get(stack)
    const compiled = await get(stack)
    const reference = await get(plain as typeof stack)
    expect(compiled).toEqual(reference)
  })
})

describe('operation names', () => {
  const send = async (gw: Pick<typeof stack, 'gateway'>, body: Record<string, unknown>) => {
    const r = await gw.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: 'Bearer demo-token',
      },
      body: JSON.stringify(body),
    })
    return { status: r.status, body: await r.json() }
  }
  it.each([
    [
      'B of two',
      {
        query: `query A { company(${at}) { name } } query B($n: Int = 2) { lists(first: $n) { totalCount } }`,
        operationName: 'B',
      },
    ],
    [
      'A then B (same document)',
      {
        query: `query A { company(${at}) { name } } query B($n: Int = 2) { lists(first: $n) { totalCount } }`,
        operationName: 'A',
      },
    ],
    [
      'operation named constructor',
      { query: `query constructor { company(${at}) { name } }`, operationName: 'constructor' },
    ],
    [
      'operation named toString, no operationName',
      { query: `query toString { company(${at}) { name } }` },
    ],
    ['empty operationName', { query: `{ company(${at}) { name } }`, operationName: '' }],
    [
      'null operationName on two operations',
      { query: `query A { __typename } query B { __typename }`, operationName: null },
    ],
  ])('%s', async (_n, body) => {
    await send(stack, body)
    await send(stack, body)
    const compiled = await send(stack, body)
    const reference = await send(plain, body)
    expect(compiled).toEqual(reference)
  })
})
