import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { type Client, demoToken, startStack } from '../support/stack.js'

/**
 * The request edge: one code and one status per kind of refusal, whatever the method (GET, a form,
 * a JSON body) and the Accept (docs/errors.md, "Refusals of a request"). A request that is not a
 * well-formed GraphQL-over-HTTP request is BAD_REQUEST, HTTP 400 under either Accept; a well-formed
 * one refused before execution answers 200 to application/json and 400 to
 * application/graphql-response+json. Nothing reaches the upstream, and nothing the caller sent is
 * echoed back in production.
 */

const stack = await startStack({ upstreamToken: 'demo-token' })
const manifest = fileURLToPath(new URL('../gql/persisted-documents.json', import.meta.url))
const persisted = stack.replica({ persistedDocuments: manifest })

const ACCEPTS = ['application/json', 'application/graphql-response+json'] as const
const query = '{ lists(first: 1) { totalCount } }'

/** A request as a caller writes it. */
interface Sent {
  method?: string
  path?: string
  type?: string
  body?: string
}
const json = (body: unknown): Sent => ({ body: JSON.stringify(body) })
const get = (params: Record<string, string>): Sent => ({
  method: 'GET',
  path: `/graphql?${new URLSearchParams(params)}`,
})
const form = (params: Record<string, string>): Sent => ({
  type: 'application/x-www-form-urlencoded',
  body: new URLSearchParams(params).toString(),
})

async function send(client: Client, sent: Sent, accept: string, headers = {}) {
  const body = sent.body
  return client.request({
    method: sent.method ?? (body === undefined ? 'GET' : 'POST'),
    path: sent.path,
    headers: {
      accept,
      ...demoToken,
      ...(body === undefined ? {} : { 'content-type': sent.type ?? 'application/json' }),
      ...headers,
    },
    body,
  })
}

/** Status, codes and whether `data` is there: what a client decides on. */
async function answerTo(client: Client, sent: Sent, accept: string) {
  const answer = await send(client, sent, accept)
  const body = answer.json()
  return {
    status: answer.status,
    codes: body.errors?.map((e) => e.extensions?.code),
    data: 'data' in body,
  }
}

describe('a request that is not well formed: BAD_REQUEST, HTTP 400 under either Accept', () => {
  const malformed: [string, Sent][] = [
    ['a body that is not JSON', { body: '{"query": "{ lists' }],
    ['an empty JSON body', { body: '' }],
    ['a JSON body of null', json(null)],
    ['a JSON body of a string', json(query)],
    ['a batch (a JSON array)', json([{ query }])],
    ['no query', json({})],
    ['a null query', json({ query: null })],
    ['an empty query', json({ query: '' })],
    ['a number for query', json({ query: 123 })],
    ['an object for query', json({ query: {} })],
    ['an array for query', json({ query: [query] })],
    ['a boolean for query', json({ query: true })],
    ['a number for operationName', json({ query, operationName: 5 })],
    ['an object for operationName', json({ query, operationName: {} })],
    ['an array for operationName', json({ query, operationName: ['A'] })],
    ['a boolean for operationName', json({ query, operationName: true })],
    ['a string for variables', json({ query, variables: '{}' })],
    ['a number for variables', json({ query, variables: 5 })],
    ['an array for variables', json({ query, variables: [7] })],
    ['a boolean for variables', json({ query, variables: true })],
    ['a string for extensions', json({ query, extensions: 'x' })],
    ['a number for extensions', json({ query, extensions: 5 })],
    ['an array for extensions', json({ query, extensions: [] })],
    ['a number for documentId', json({ query, documentId: 5 })],
    ['a documentId beside a query', json({ query, documentId: 'abc' })],
    ['a documentId where no manifest is set', json({ documentId: 'abc' })],
    ['an unknown parameter', json({ query, qeury: query })],
    ['an unknown parameter named like an Object method', json({ query, constructor: 1 })],
    ['a GET without a query', get({})],
    ['a GET with an empty query', get({ query: '' })],
    ['a GET whose variables are not JSON', get({ query, variables: '{bad' })],
    ['a GET whose variables are a number', get({ query, variables: '5' })],
    ['a GET whose variables are an array', get({ query, variables: '[7]' })],
    ['a GET whose extensions are not JSON', get({ query, extensions: '{"persistedQuery":' })],
    ['a GET with an unknown parameter', get({ query, qeury: query })],
    ['a GET with a documentId beside a query', get({ query, documentId: 'abc' })],
    ['a form without a query', form({ variables: '{}' })],
    ['a form whose variables are not JSON', form({ query, variables: '{bad' })],
    ['a form with an unknown parameter', form({ query, qeury: query })],
  ]

  it.each(
    malformed.flatMap(([what, sent]) => ACCEPTS.map((accept) => [what, accept, sent] as const)),
  )('%s, Accept: %s → 400 BAD_REQUEST, no upstream call', async (_what, accept, sent) => {
    expect(await answerTo(stack, sent, accept)).toEqual({
      status: 400,
      codes: ['BAD_REQUEST'],
      data: false,
    })
    expect(stack.demo.calls()).toEqual([])
  })

  it.each(
    [
      ['a number for documentId', json({ documentId: 5 })],
      ['neither a query nor a documentId', json({ variables: {} })],
      ['a documentId beside a query', json({ query, documentId: 'abc' })],
    ].flatMap(([what, sent]) => ACCEPTS.map((accept) => [what, accept, sent] as const)),
  )('with PERSISTED_DOCUMENTS: %s, Accept: %s → 400 BAD_REQUEST', async (_what, accept, sent) => {
    expect(await answerTo(persisted, sent as Sent, accept)).toEqual({
      status: 400,
      codes: ['BAD_REQUEST'],
      data: false,
    })
    expect(stack.demo.calls()).toEqual([])
  })

  it.each(ACCEPTS)(
    'a POST of a Content-Type the gateway does not read, Accept: %s → 415 BAD_REQUEST',
    async (accept) => {
      const sent = { type: 'text/plain', body: JSON.stringify({ query }) }
      expect(await answerTo(stack, sent, accept)).toEqual({
        status: 415,
        codes: ['BAD_REQUEST'],
        data: false,
      })
    },
  )

  it.each(ACCEPTS)('a PUT, Accept: %s → 405 BAD_REQUEST', async (accept) => {
    const sent = { method: 'PUT', body: JSON.stringify({ query }) }
    expect(await answerTo(stack, sent, accept)).toEqual({
      status: 405,
      codes: ['BAD_REQUEST'],
      data: false,
    })
  })
})

describe('a well-formed request refused before execution: its code, 200 to application/json, 400 to application/graphql-response+json', () => {
  const named = 'query A { lists(first: 1) { totalCount } }'
  const refused: [string, string, Sent][] = [
    [
      'an operationName the document lacks',
      'OPERATION_RESOLUTION_FAILURE',
      json({ query: named, operationName: 'B' }),
    ],
    [
      'an operationName the document lacks, by GET',
      'OPERATION_RESOLUTION_FAILURE',
      get({ query: named, operationName: 'B' }),
    ],
    [
      'two operations and no operationName',
      'OPERATION_RESOLUTION_FAILURE',
      json({ query: `${named} query B { __typename }` }),
    ],
    ['a document that does not parse', 'GRAPHQL_PARSE_FAILED', json({ query: '{ lists' })],
    ['a document that does not parse, by GET', 'GRAPHQL_PARSE_FAILED', get({ query: '{ lists' })],
    ['a mutation', 'GRAPHQL_VALIDATION_FAILED', json({ query: 'mutation { deleteEverything }' })],
    [
      'a mutation, by GET',
      'GRAPHQL_VALIDATION_FAILED',
      get({ query: 'mutation { deleteEverything }' }),
    ],
    [
      'a subscription, by GET',
      'GRAPHQL_VALIDATION_FAILED',
      get({ query: 'subscription { lists { totalCount } }' }),
    ],
  ]

  it.each(refused)('%s → %s', async (_what, code, sent) => {
    for (const accept of ACCEPTS) {
      const answer = await answerTo(stack, sent, accept)
      expect([accept, answer]).toEqual([
        accept,
        { status: accept === 'application/json' ? 200 : 400, codes: [code], data: false },
      ])
    }
    expect(stack.demo.calls()).toEqual([])
  })
})

describe('parameters that are not given', () => {
  it.each([
    [
      'null for operationName, variables, extensions and documentId',
      json({ query, operationName: null, variables: null, extensions: null, documentId: null }),
    ],
    ['an empty operationName', json({ query, operationName: '' })],
    ['an unknown parameter that is null', json({ query, id: null })],
    ['empty values in a GET', get({ query, operationName: '', variables: '', extensions: '' })],
    ['variables of null in a GET', get({ query, variables: 'null' })],
  ])('%s: served', async (_what, sent) => {
    for (const accept of ACCEPTS) {
      expect(await answerTo(stack, sent, accept)).toEqual({
        status: 200,
        codes: undefined,
        data: true,
      })
    }
  })
})

describe('NODE_ENV=production: nothing the caller sent comes back', () => {
  const production = stack.replica({ production: true, corsOrigins: [] })
  const marker = 'CALLER-SENT-THIS'
  const cases: [string, Sent, Record<string, string>?][] = [
    ['a body that is not JSON', { body: `{"query": "${marker}` }],
    ['an unknown parameter', json({ query, [marker]: 1 })],
    ['a GET with an unknown parameter', get({ query, [marker]: '1' })],
    ['a GET whose variables are not JSON', get({ query, variables: marker })],
    ['a form whose extensions are not JSON', form({ query, extensions: marker })],
    ['an operationName the document lacks', json({ query, operationName: marker })],
    ['a documentId that is not a string', json({ documentId: { [marker]: 1 } })],
    ['an unknown path', { method: 'GET', path: `/${marker}` }],
    ['a Content-Type the gateway does not read', { type: `text/${marker}`, body: '{}' }],
    [
      'a page of an origin that may not call',
      json({ query }),
      { origin: `https://${marker}.example` },
    ],
  ]

  it.each(cases)('%s', async (_what, sent, headers) => {
    for (const accept of ACCEPTS) {
      const answer = await send(production, sent, accept, headers)
      expect(answer.status).toBeGreaterThanOrEqual(200)
      expect(answer.text.toLowerCase()).not.toContain(marker.toLowerCase())
      expect(answer.text).not.toMatch(/originalError|stack|SyntaxError/)
      const errors = answer.json().errors ?? []
      expect(errors.length).toBe(1)
      for (const error of errors) {
        expect(Object.keys(error.extensions ?? {}).sort()).toEqual(['code', 'retryable'])
      }
    }
    expect(stack.demo.calls()).toEqual([])
  })
})
