import { Writable } from 'node:stream'
import { GraphQLError, getIntrospectionQuery, parse } from 'graphql'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { estimateUpstreamCalls } from '../src/cost.js'
import { DemoUpstream } from '../src/demo-upstream/server.js'
import { maskError } from '../src/errors.js'
import { createLogger } from '../src/logger.js'
import { schema } from '../src/schema/index.js'
import { UpstreamError } from '../src/upstream/errors.js'
import { createGateway } from '../src/yoga.js'
import { graphql } from './gql/index.js'
import { startStack } from './support/stack.js'

/** What protects the upstream and the callers: cost budget, shape limits, masking, no leaks. */

const stack = await startStack({ upstreamToken: 'demo-token' })
const { demo } = stack
const big = demo.data.lists.find((l) => l.amountOfCompanies > 1000)
if (!big) throw new Error('no big list')

async function post(body: string, headers: Record<string, string> = {}) {
  const response = await stack.gateway.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body,
  })
  const text = await response.text()
  return {
    status: response.status,
    body: text
      ? (JSON.parse(text) as Record<string, unknown> & {
          errors?: { message: string; extensions?: { code?: string } }[]
        })
      : {},
  }
}
const query = (q: string, variables?: object) => post(JSON.stringify({ query: q, variables }))

const FrontendPage = graphql(`
  query FrontendPage($listId: Int!) {
    list(listId: $listId) {
      name
      companies(first: 50) {
        edges {
          node {
            name
            financials(first: 1) { nodes { endDate profitability { revenue } } }
            lookalikes(first: 3) { edges { score node { name } } }
            shareholders { name percentage company { name } }
          }
        }
      }
    }
  }
`)

describe('operation cost', () => {
  it('a normal frontend page (50 companies, latest statement, 3 named lookalikes, shareholders) fits the default budget', async () => {
    const result = await stack.execute(FrontendPage, { listId: big.id })
    expect(result.errors).toBeUndefined()
    const cost = result.extensions?.cost as {
      estimated: number
      upstreamCalls: number
      limit: number
    }
    // list + members + 50 × (statements + lookalikes + 3 lookalike names + relationships)
    expect(cost.estimated).toBe(2 + 50 * 6)
    expect(cost.limit).toBe(1000)
    expect(cost.upstreamCalls).toBe(demo.calls().length)
    expect(cost.upstreamCalls).toBeLessThanOrEqual(cost.estimated)
  })

  it('refuses a fan-out to hundreds of thousands of calls with QUERY_TOO_COSTLY and no upstream call', async () => {
    const { status, body } = await query(
      '{ lists(first: 500) { nodes { companies(first: 500) { nodes { financials(first: 1) { totalCount } } } } } }',
    )
    expect(status).toBe(200)
    expect(body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COSTLY')
    expect(body.errors?.[0]?.message).toMatch(/up to 25050\d+ upstream calls/)
    expect(body.extensions).toEqual({ cost: { estimated: 250_501, limit: 1000, upstreamCalls: 0 } })
    expect(demo.calls()).toEqual([])
  })

  it('reads page sizes from variables, and the budget from MAX_OPERATION_COST', async () => {
    const tight = await startStack({ upstreamToken: 'demo-token', maxOperationCost: 10 })
    const q =
      'query($n: Int) { list(listId: 1001) { companies(first: $n) { nodes { financials(first: 1) { totalCount } } } } }'
    const small = await tight.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: q, variables: { n: 8 } }),
    })
    expect(((await small.json()) as { extensions: unknown }).extensions).toEqual({
      cost: { estimated: 10, limit: 10, upstreamCalls: 10 },
    })
    const large = await tight.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: q, variables: { n: 9 } }),
    })
    const body = (await large.json()) as { errors: { extensions: { code: string } }[] }
    expect(body.errors[0]?.extensions.code).toBe('QUERY_TOO_COSTLY')
    expect(tight.demo.calls()).toHaveLength(10)
  })

  it.each([
    ['{ company(country: BE, number: "0922178703") { number } }', 0],
    ['{ company(country: BE, number: "0922178703") { name place } }', 1],
    ['{ company(country: BE, number: "0922178703") { name financials { totalCount } } }', 1],
    [
      '{ company(country: BE, number: "0922178703") { shareholders { name } participations { name } } }',
      1,
    ],
    [
      '{ company(country: BE, number: "0922178703") { lookalikes(first: 5) { nodes { name } } } }',
      6,
    ],
    ['{ company(country: BE, number: "0922178703") { financials(last: 3) { totalCount } } }', 2],
    ['{ lists { nodes { name } } }', 1],
    [
      '{ lists(first: 4) { nodes { companies(first: 10) { nodes { name } } contacts(first: 2) { nodes { company { name } } } } } }',
      9,
    ],
    ['{ nodes(ids: ["TGlzdDoxMDAx", "TGlzdDoxMDAy"]) { id } }', 2],
    ['query A { lists { totalCount } } query B { list(listId: 1) { name } }', 1],
  ])('estimates %s as %i', (source, expected) => {
    expect(
      estimateUpstreamCalls(
        schema,
        parse(source),
        source.includes('query B') ? 'B' : undefined,
        {},
      ),
    ).toBe(expected)
  })
})

describe('operation shape limits', () => {
  const nested = (depth: number) => {
    let selection = 'number'
    for (let i = 0; i < depth; i++) selection = `lookalikes(first: 1) { nodes { ${selection} } }`
    return `{ company(country: BE, number: "0922178703") { ${selection} } }`
  }

  it('refuses an operation deeper than MAX_DEPTH, without an upstream call', async () => {
    expect((await query(nested(7))).body.errors).toBeUndefined()
    demo.reset()
    const { body } = await query(nested(8))
    expect(body.errors?.[0]?.message).toMatch(/depth limit of 16/)
    expect(body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED')
    expect(demo.calls()).toEqual([])
  })

  it('refuses more than MAX_ALIASES aliases', async () => {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: company(country: BE, number: "0922178703") { number }`).join(' ')} }`
    expect((await query(aliases(30))).body.errors).toBeUndefined()
    const { body } = await query(aliases(31))
    expect(body.errors?.[0]?.message).toMatch(/Aliases limit of 30/)
    expect(body.errors?.[0]?.extensions?.code).toBeDefined()
  })

  it('refuses more than 2,000 tokens and more than 20 directives', async () => {
    const tokens = await query(`{ ${'__typename '.repeat(2100)} }`)
    expect(tokens.body.errors?.[0]?.message).toMatch(/Token limit of 2000/)
    expect(tokens.body.errors?.[0]?.extensions?.code).toBeDefined()
    const directives = await query(`{ __typename ${'@include(if: true) '.repeat(21)} }`)
    expect(directives.body.errors?.[0]?.message).toMatch(/Directives limit of 20/)
  })

  it('refuses a body larger than MAX_BODY_BYTES with 413', async () => {
    const { status } = await post(
      JSON.stringify({ query: `{ __typename }`, padding: 'x'.repeat(110_000) }),
    )
    expect(status).toBe(413)
  })

  it('does not accept batched operations', async () => {
    const { status, body } = await post(
      JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
    )
    expect(status).toBe(400)
    expect(body.errors?.[0]?.extensions?.code).toBeDefined()
  })

  it('GraphiQL’s introspection query passes every limit', async () => {
    const { body } = await query(
      getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }),
    )
    expect(body.errors).toBeUndefined()
  })
})

describe('no leaks', () => {
  it('masks unexpected errors in production: no message, no stack', () => {
    const unexpected = new GraphQLError('boom at /srv/secret.ts', {
      originalError: new Error('boom at /srv/secret.ts'),
    })
    const masked = maskError(unexpected, 'Unexpected error.', false)
    expect(masked.message).toBe('Unexpected error.')
    expect(JSON.stringify(masked)).not.toContain('secret')
    expect((masked as GraphQLError).extensions.code).toBe('INTERNAL_SERVER_ERROR')
  })

  it('keeps the code and the safe message of upstream failures, with or without production', () => {
    const failure = new UpstreamError(
      'RATE_LIMITED',
      'GET /v1/lists',
      'rate limited by the upstream (429)',
      { retryAfterSeconds: 5 },
    )
    for (const dev of [true, false]) {
      const shown = maskError(
        new GraphQLError(failure.message, { originalError: failure }),
        'Unexpected error.',
        dev,
      ) as GraphQLError
      expect(shown.message).toBe('GET /v1/lists: rate limited by the upstream (429)')
      expect(shown.extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: 5 })
    }
  })

  it('never logs a token, and logs one line per operation with its cost', async () => {
    let logged = ''
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged += chunk
        done()
      },
    })
    const upstream = new DemoUpstream({ data: demo.data, tokens: ['secret-caller-token'] })
    const url = await upstream.start()
    const gateway = createGateway(
      { ...loadConfig({ NODE_ENV: 'production' }), upstreamUrl: url, upstreamTimeoutMs: 500 },
      createLogger('debug', sink),
    )
    upstream.inject({ path: /financials$/, status: 503 })
    const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer secret-caller-token' },
      body: JSON.stringify({
        query:
          'query Statements { company(country: BE, number: "0922178703") { financials { totalCount } } }',
      }),
    })
    const body = await response.text()
    await gateway.close()
    await upstream.stop()
    expect(body).toContain('UPSTREAM_ERROR')
    expect(logged).toContain('"operation":"Statements"')
    expect(logged).toContain('retrying upstream read')
    for (const text of [logged, body]) {
      expect(text).not.toContain('secret-caller-token')
      expect(text).not.toContain(url)
    }
  })

  it('never uses one caller’s token for another, even for the same reads at the same time', async () => {
    const upstream = new DemoUpstream({ data: demo.data, tokens: ['alice', 'bob'] })
    const url = await upstream.start()
    upstream.latencyMs = 20
    const gateway = createGateway({ ...loadConfig({}), upstreamUrl: url })
    const ask = (token: string) =>
      gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          query: '{ lists(first: 3) { totalCount } list(listId: 1001) { name } }',
        }),
      })
    await Promise.all([ask('alice'), ask('bob'), ask('alice'), ask('nobody')])
    const calls = upstream.calls()
    await gateway.close()
    await upstream.stop()
    // Each request made its own two reads with its own token: nothing was shared.
    expect(calls.map((c) => c.token).sort()).toEqual([
      'alice',
      'alice',
      'alice',
      'alice',
      'bob',
      'bob',
      'nobody',
      'nobody',
    ])
  })
})
