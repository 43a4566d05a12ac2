import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/observability/logger.js'
import { bigList, claes, companyId, globalId, michiels } from '../support/fixtures.js'
import { multipartParts, reassemble } from '../support/incremental.js'
import { logSink } from '../support/log-sink.js'
import { root } from '../support/process.js'
import { costOf, demoToken, startStack } from '../support/stack.js'

/**
 * SUBGRAPH=true (docs/federation.md): `_service { sdl }` is schema.subgraph.graphql, and
 * `_entities` resolves each reference through the path its root field takes (company(),
 * list()): the operation's loaders, the existence rule, the estimate and its errors.
 */

const log = logSink()
const stack = await startStack({ subgraph: true }, { logger: createLogger('info', log.stream) })
const { demo } = stack
const committed = await readFile(new URL('schema.subgraph.graphql', root), 'utf8')

const statementsPath = (c: { country: string; companyNumber: string }) =>
  `/v1/companies/${c.country}/${c.companyNumber}/financials`
const paths = () => demo.calls().map((call) => call.path)
const ref = (c: { country: string; companyNumber: string }) => ({
  __typename: 'Company',
  country: c.country,
  number: c.companyNumber,
})

/** The operation a router sends for a batch of references. */
const ENTITIES = `query ($representations: [_Any!]!) {
  _entities(representations: $representations) {
    __typename
    ... on Company { id number name }
    ... on List { listId listName: name }
  }
}`

describe('_service', () => {
  it('answers schema.subgraph.graphql, which declares the keys and keeps @semanticNonNull through composition', async () => {
    const { body } = await stack.post('{ _service { sdl } }')
    expect([body.data, body.errors]).toEqual([{ _service: { sdl: committed } }, undefined])
    expect(committed).toMatch(/^type Company implements Node @key\(fields: "country number"\) \{$/m)
    expect(committed).toMatch(/^type List implements Node @key\(fields: "listId"\) \{$/m)
    expect(committed).toMatch(/@composeDirective\(name: "@semanticNonNull"\)/)
    expect(demo.calls()).toEqual([])
  })

  it('is what GET /graphql/schema.graphql serves in this mode', async () => {
    const answer = await stack.request({ path: '/graphql/schema.graphql' })
    expect([answer.status, answer.text]).toEqual([200, committed])
  })

  it('is not there with SUBGRAPH=false (the default): the served schema is schema.graphql', async () => {
    const plain = stack.replica({ subgraph: false })
    const { body } = await plain.post('{ _service { sdl } }')
    expect(body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED')
    const served = await plain.request({ path: '/graphql/schema.graphql' })
    expect(served.text).toBe(await readFile(new URL('schema.graphql', root), 'utf8'))
    await plain.close()
  })
})

describe('_entities', () => {
  it('answers known, unknown and malformed references each at its index; one read per known or unknown reference, none for a malformed one', async () => {
    const unknown = { country: 'NL', companyNumber: '00000001' }
    const representations = [
      ref(claes),
      ref(unknown),
      { __typename: 'Company', country: 'BE', number: '0922178704' },
      { __typename: 'Company', country: 'XX', number: '1' },
      { __typename: 'Invoice', id: 1 },
      'not an object',
      { __typename: 'List', listId: bigList.id },
      { __typename: 'List', listId: -1 },
      { __typename: 'List', listId: 999_999 },
      { __typename: 'constructor' },
    ]
    const { status, body } = await stack.post(ENTITIES, { representations })
    expect(status).toBe(200)
    expect(body.data).toEqual({
      _entities: [
        {
          __typename: 'Company',
          id: companyId(claes),
          number: claes.companyNumber,
          name: claes.name,
        },
        null,
        null,
        null,
        null,
        null,
        { __typename: 'List', listId: bigList.id, listName: bigList.name },
        null,
        null,
        null,
      ],
    })
    expect(body.errors?.map((e) => [e.path, e.extensions?.code]).sort()).toEqual(
      [
        [['_entities', 1], 'NOT_FOUND'],
        [['_entities', 2], 'BAD_USER_INPUT'],
        [['_entities', 3], 'BAD_USER_INPUT'],
        [['_entities', 4], 'BAD_USER_INPUT'],
        [['_entities', 5], 'BAD_USER_INPUT'],
        [['_entities', 7], 'BAD_USER_INPUT'],
        [['_entities', 8], 'NOT_FOUND'],
        [['_entities', 9], 'BAD_USER_INPUT'],
      ].sort(),
    )
    expect(paths().sort()).toEqual(
      [
        statementsPath(claes),
        statementsPath(unknown),
        `/v1/lists/${bigList.id}`,
        '/v1/lists/999999',
      ].sort(),
    )
    expect(costOf(body).upstreamCalls).toBe(4)
  })

  it('N references cost at most N reads: the same company twice, and once more at the root, is one statements read', async () => {
    const { body } = await stack.post(
      `query ($representations: [_Any!]!) {
        company(country: BE, number: "${claes.companyNumber}") { name }
        _entities(representations: $representations) { ... on Company { name place } }
      }`,
      { representations: [ref(claes), ref(michiels), ref(claes)] },
    )
    expect(body.errors).toBeUndefined()
    expect(body.data?._entities).toEqual([
      { name: claes.name, place: claes.place },
      { name: michiels.name, place: michiels.place },
      { name: claes.name, place: claes.place },
    ])
    expect(paths().sort()).toEqual([statementsPath(claes), statementsPath(michiels)].sort())
  })

  it('a reference carrying JSON nested thousands deep is answered like the others, not an internal error', async () => {
    const deep = `${'['.repeat(5000)}"end"${']'.repeat(5000)}`
    const representations = `[${JSON.stringify(ref(claes))},${JSON.stringify(ref(michiels)).replace('}', `,"extra":${deep}}`)}]`
    const answer = await stack.request({
      headers: { 'content-type': 'application/json', accept: 'application/json', ...demoToken },
      body: `{"query":${JSON.stringify(ENTITIES)},"variables":{"representations":${representations}}}`,
    })
    expect(answer.status).toBe(200)
    const body = answer.json()
    expect(body.errors).toBeUndefined()
    expect(body.data?._entities).toMatchObject([{ name: claes.name }, { name: michiels.name }])
  })

  it('accepts a number as company() does (spaces, dots, a country prefix) and answers it normalised', async () => {
    const { body } = await stack.post(ENTITIES, {
      representations: [{ __typename: 'Company', country: 'BE', number: 'BE 0922.178.703' }],
    })
    expect(body.data?._entities).toEqual([
      {
        __typename: 'Company',
        id: companyId(claes),
        number: claes.companyNumber,
        name: claes.name,
      },
    ])
  })

  it('answers a company’s fields as company() does: paging, global IDs, reads started together', async () => {
    const fields = `id name financials(first: 2) { totalCount pageInfo { hasNextPage endCursor } nodes { endDate } }
      lookalikes(first: 2) { edges { cursor score node { id name } } }`
    const root = await stack.post(
      `{ company(country: BE, number: "${michiels.companyNumber}") { ${fields} } }`,
    )
    const rootCalls = paths().sort()
    demo.reset()
    const entity = await stack.post(
      `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Company { ${fields} } } }`,
      { r: [ref(michiels)] },
    )
    expect(entity.body.errors).toBeUndefined()
    expect(entity.body.data?._entities).toEqual([root.body.data?.company])
    expect(paths().sort()).toEqual(rootCalls)
    expect(costOf(entity.body).estimated).toBe(costOf(root.body).estimated)
  })

  it('a list reference pages its companies as list() does', async () => {
    const fields = 'id companies(first: 3) { pageInfo { endCursor } nodes { id name } }'
    const root = await stack.post(`{ list(listId: ${bigList.id}) { ${fields} } }`)
    const entity = await stack.post(
      `query ($r: [_Any!]!) { _entities(representations: $r) { ... on List { ${fields} } } }`,
      { r: [{ __typename: 'List', listId: bigList.id }] },
    )
    expect(entity.body.data?._entities).toEqual([root.body.data?.list])
    expect(entity.body.data?._entities).toEqual([
      expect.objectContaining({ id: globalId('List', String(bigList.id)) }),
    ])
  })

  it('a statements read that fails for a transient reason: the company with what the reference gave, its read-backed fields null with their errors', async () => {
    demo.inject({ path: statementsPath(claes), status: 500 })
    const { body } = await stack.post(ENTITIES, { representations: [ref(claes), ref(michiels)] })
    expect(body.data?._entities).toEqual([
      { __typename: 'Company', id: companyId(claes), number: claes.companyNumber, name: null },
      {
        __typename: 'Company',
        id: companyId(michiels),
        number: michiels.companyNumber,
        name: michiels.name,
      },
    ])
    expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['_entities', 0, 'name'], 'UPSTREAM_ERROR'],
    ])
  })

  it('answers the same cold and warm from the cache of reads (its values frozen and shared), and with @defer', async () => {
    const cached = stack.replica({ subgraph: true, cacheTtlSeconds: 300 })
    const representations = [ref(claes), { __typename: 'List', listId: bigList.id }]
    const cold = await cached.post(ENTITIES, { representations })
    const warm = await cached.post(ENTITIES, { representations })
    expect(cold.body.errors).toBeUndefined()
    expect(warm.body.data).toEqual(cold.body.data)
    expect(costOf(warm.body).upstreamCalls).toBe(0)
    const deferred = await cached.request({
      headers: { ...demoToken, accept: 'multipart/mixed' },
      body: {
        query: ENTITIES.replace(
          '... on Company { id number name }',
          '... on Company { id ... @defer { number name } }',
        ),
        variables: { representations },
      },
    })
    expect(deferred.headers.get('content-type')).toMatch(/^multipart\/mixed/)
    const parts = multipartParts(deferred)
    expect(parts.length).toBeGreaterThan(1)
    expect(reassemble(parts)).toEqual({ data: cold.body.data, errors: [] })
    await cached.close()
  })

  it('counts each reference in the estimate and refuses, before any call, what is over the budget', async () => {
    const fields = '... on Company { name financials(first: 1) { totalCount } }'
    const { body } = await stack.post(
      `query ($r: [_Any!]!) { _entities(representations: $r) { ${fields} } }`,
      { r: [ref(claes), ref(michiels)] },
    )
    // Each reference: its statements read, which its name and financials share.
    expect(costOf(body).estimated).toBe(2)
    demo.reset()
    const representations = Array.from({ length: 1001 }, () => ref(claes))
    const refused = await stack.post(
      `query ($r: [_Any!]!) { _entities(representations: $r) { ${fields} } }`,
      { r: representations },
    )
    expect(refused.body.data).toBeUndefined()
    expect(refused.body.errors?.map((e) => e.extensions?.code)).toEqual(['QUERY_TOO_COSTLY'])
    expect(demo.calls()).toEqual([])
  })
})

describe('router traffic (SUBGRAPH_ROUTER_SECRET)', () => {
  const secret = 'shared between the router and this gateway'
  const dir = mkdtempSync(join(tmpdir(), 'subgraph-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const manifest = join(dir, 'manifest.json')
  writeFileSync(manifest, JSON.stringify({ one: '{ lists(first: 1) { totalCount } }' }))
  const gateway = stack.replica({
    persistedDocuments: manifest,
    persistedDocumentsOnly: true,
    routerSecret: secret,
  })
  const representations = [ref(claes)]
  const ask = (headers: Record<string, string>) =>
    gateway.post(ENTITIES, { representations }, { ...demoToken, ...headers })

  it("with the secret, the router's own operations run although PERSISTED_DOCUMENTS_ONLY, and the log says router", async () => {
    log.clear()
    const { body } = await ask({ 'x-router-secret': secret })
    expect(body.errors).toBeUndefined()
    expect(body.data?._entities).toHaveLength(1)
    expect(log.lines().find((line) => line.msg === 'operation')).toMatchObject({ router: true })
  })

  it.each([
    ['no secret', {}],
    ['a wrong one', { 'x-router-secret': `${secret}!` }],
  ])('with %s, a plain operation is PERSISTED_QUERY_ONLY, before any call', async (_, headers) => {
    const { body } = await ask(headers)
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['PERSISTED_QUERY_ONLY'])
    expect(demo.calls()).toEqual([])
  })

  it('limits apply to router traffic too: over the budget is refused before any call', async () => {
    const { body } = await gateway.post(
      ENTITIES,
      { representations: Array.from({ length: 1001 }, () => ref(claes)) },
      { ...demoToken, 'x-router-secret': secret },
    )
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['QUERY_TOO_COSTLY'])
    expect(demo.calls()).toEqual([])
  })
})
