import { getIntrospectionQuery } from 'graphql'
import { describe, expect, it } from 'vitest'
import { claes, companyArgs } from '../support/fixtures.js'
import { costOf, demoToken, startStack } from '../support/stack.js'

/**
 * Admission (src/operation/use-admission.ts): what is refused is refused before it costs, with
 * no `data` and no upstream call; what would cost nothing is not refused.
 */

const stack = await startStack()
const { demo } = stack
const at = companyArgs(claes)

/** The operation's answer: status, body, and the upstream calls it made. */
async function ask(
  query: string,
  variables?: Record<string, unknown>,
  accept = 'application/json',
) {
  const answer = await stack.request({
    headers: { accept, ...demoToken },
    body: { query, variables },
  })
  return { status: answer.status, body: answer.json(), calls: demo.calls().length }
}

describe('arguments invalid on their own, refused before any call', () => {
  it.each([
    [
      'first with last',
      `{ company(${at}) { financials(first: 1, last: 1) { totalCount } } }`,
      'last',
    ],
    [
      'minScore beyond any float',
      `{ company(${at}) { lookalikes(minScore: 1e400) { totalCount } } }`,
      'minScore',
    ],
    ['a page of 501', `{ company(${at}) { contacts(first: 501) { totalCount } } }`, 'first'],
    ['a malformed cursor', `{ lists(after: "x") { totalCount } }`, 'after'],
    ['a malformed global ID', '{ node(id: "nope") { id } }', 'id'],
  ])('%s: BAD_USER_INPUT naming the argument, no data', async (_what, query, argument) => {
    const { status, body, calls } = await ask(query, undefined, 'application/graphql-response+json')
    expect(status).toBe(400)
    expect(body.data).toBeUndefined()
    expect(body.errors?.map((e) => e.extensions)).toEqual([
      { code: 'BAD_USER_INPUT', retryable: false, argument },
    ])
    expect(costOf(body)).toMatchObject({ upstreamCalls: 0 })
    expect(calls).toBe(0)
  })

  it('in the variables as in the document', async () => {
    const query = `query($first: Int, $last: Int) { company(${at}) { financials(first: $first, last: $last) { totalCount } } }`
    const { body, calls } = await ask(query, { first: 1, last: 1 })
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT'])
    expect(calls).toBe(0)
    // A value a Float cannot hold does not even coerce (1e400 in the body's JSON is Infinity).
    const query2 = `query($s: Float) { company(${at}) { lookalikes(minScore: $s) { totalCount } } }`
    const scores = await stack.request({
      headers: { 'content-type': 'application/json', accept: 'application/json', ...demoToken },
      body: `{"query": ${JSON.stringify(query2)}, "variables": {"s": 1e400}}`,
    })
    expect(scores.json().errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT')
    expect(demo.calls()).toEqual([])
  })

  it('only in what would run: a refused argument under @skip costs nothing and refuses nothing', async () => {
    const { body } = await ask(
      `{ company(${at}) { number financials(first: 1, last: 1) @skip(if: true) { totalCount } } }`,
    )
    expect(body.errors).toBeUndefined()
    expect(body.data).toEqual({ company: { number: claes.companyNumber } })
  })
})

describe('introspection counts', () => {
  it('GraphiQL’s introspection, with every option, passes at the default limits', async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    })
    const { status, body, calls } = await ask(query)
    expect(status).toBe(200)
    expect(body.errors).toBeUndefined()
    expect((body.data as { __schema: { types: unknown[] } }).__schema.types.length).toBeGreaterThan(
      40,
    )
    expect(calls).toBe(0)
  })

  it('thirty aliased __schema fan-outs are refused as too costly, before they are answered', async () => {
    const fields = 'fields { name type { name ofType { name } } }'
    const fragment = `fragment F on __Type { name fields { name type { name ${fields} ofType { name ${fields} } } } }`
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: __schema { types { ...F } }`)
    const { body } = await ask(`{ ${aliases.join(' ')} } ${fragment}`)
    expect(body.data).toBeUndefined()
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['QUERY_TOO_COSTLY'])
    expect(body.errors?.[0]?.message).toMatch(/30540 objects/)
  })

  it('counts __type(name: $name) as the largest type it could name, whatever name came first', async () => {
    const tight = stack.replica({ maxResultObjects: 1000 })
    const aliases = Array.from({ length: 25 }, (_, i) => `a${i}: __type(name: $n) { ...T }`)
    const query = `query($n: String!) { ${aliases.join(' ')} } fragment T on __Type { name fields { name args { name } type { name ofType { name } } } }`
    const ask = async (n: string) =>
      (await tight.post(query, { n })).body.errors?.map((e) => e.extensions?.code)
    // A name that matches nothing first: the analysis it leaves behind must not admit "Company".
    expect(await ask('Nope')).toEqual(['QUERY_TOO_COSTLY'])
    expect(await ask('Company')).toEqual(['QUERY_TOO_COSTLY'])
  })

  it('counts against the depth limit like any other selection', async () => {
    let typeRef = 'name'
    for (let i = 0; i < 16; i++) typeRef = `name ofType { ${typeRef} }`
    const { body } = await ask(`{ __schema { types { ${typeRef} } } }`)
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['GRAPHQL_VALIDATION_FAILED'])
  })
})

describe('@defer that would defer nothing', () => {
  it('inside a fragment @include leaves out, runs with an Accept that carries no parts', async () => {
    const query = `query($d: Boolean = false) { company(${at}) { number ... @include(if: $d) { ... @defer { name } } } }`
    const { status, body } = await ask(query)
    expect(status).toBe(200)
    expect(body.errors).toBeUndefined()
    expect(body.data).toEqual({ company: { number: claes.companyNumber } })
    const deferred = await ask(query, { d: true })
    expect(deferred.body.errors?.[0]?.extensions?.code).toBe('NOT_ACCEPTABLE')
  })
})
