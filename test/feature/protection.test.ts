import { Readable } from 'node:stream'
import { GraphQLError, getIntrospectionQuery } from 'graphql'
import { request } from 'undici'
import { describe, expect, it } from 'vitest'
import { maskError } from '../../src/errors/graphql-errors.js'
import { createLogger } from '../../src/observability/logger.js'
import { UpstreamError } from '../../src/upstream/errors.js'
import { bigList, claes, companyArgs } from '../support/fixtures.js'
import { logSink } from '../support/log-sink.js'
import { serve } from '../support/serve.js'
import { type Answer, type GraphQLResponse, startStack } from '../support/stack.js'

/** What protects the upstream and the callers: shape limits, masking, no leaks. (Budget: budget.test.ts.) */

const stack = await startStack({ upstreamToken: 'demo-token' })
const { demo } = stack
const at = companyArgs(claes)

/** A POST of this body as it is. */
async function post(text: string) {
  const answer = await stack.request({
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: text,
  })
  const body: GraphQLResponse<unknown> = answer.text ? answer.json() : { status: answer.status }
  return { status: answer.status, body }
}
const query = (q: string, variables?: object) => post(JSON.stringify({ query: q, variables }))

describe('operation shape limits', () => {
  const nested = (depth: number) => {
    let selection = 'number'
    for (let i = 0; i < depth; i++) selection = `lookalikes(first: 1) { nodes { ${selection} } }`
    return `{ company(${at}) { ${selection} } }`
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
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: company(${at}) { number }`).join(' ')} }`
    expect((await query(aliases(30))).body.errors).toBeUndefined()
    demo.reset()
    const { body } = await query(aliases(31))
    expect(body.errors?.[0]?.message).toMatch(/Aliases limit of 30/)
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['GRAPHQL_VALIDATION_FAILED'])
    expect(demo.calls()).toEqual([])
  })

  it('refuses more than 2,000 tokens and more than 20 directives', async () => {
    const tokens = await query(`{ ${'__typename '.repeat(2100)} }`)
    expect(tokens.body.errors?.[0]?.message).toMatch(/Token limit of 2000/)
    expect(tokens.body.errors?.map((e) => e.extensions?.code)).toEqual(['GRAPHQL_PARSE_FAILED'])
    const directives = await query(`{ __typename ${'@include(if: true) '.repeat(21)} }`)
    expect(directives.body.errors?.[0]?.message).toMatch(/Directives limit of 20/)
    for (const error of directives.body.errors ?? []) {
      expect(error.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED')
    }
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
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_REQUEST'])
  })

  it('GraphiQL’s introspection query passes every limit', async () => {
    const { body } = await query(
      getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }),
    )
    expect(body.errors).toBeUndefined()
  })
})

describe('requests the gateway cannot read: coded, nothing run', () => {
  const lists = '{ lists(first: 1) { totalCount } }'
  const send = (contentType: string, body: string) =>
    stack.request({ headers: { 'content-type': contentType, accept: 'application/json' }, body })
  const refusal = (answer: Answer) =>
    answer.json().errors?.map((e) => [e.extensions?.code, e.message])

  it.each([
    ['variables', '{bad'],
    ['extensions', '{"persistedQuery":'],
  ])(
    'refuses a GET whose %s is not JSON: 400 BAD_REQUEST, no upstream call',
    async (name, value) => {
      const query = encodeURIComponent('{ lists(first: 1) { totalCount } }')
      const answer = await stack.request({
        path: `/graphql?query=${query}&${name}=${encodeURIComponent(value)}`,
        headers: { accept: 'application/json' },
      })
      expect(answer.status).toBe(400)
      expect(answer.json().errors?.map((e) => [e.extensions?.code, e.message])).toEqual([
        ['BAD_REQUEST', `The ${name} parameter is not JSON.`],
      ])
      expect(stack.demo.calls()).toEqual([])
    },
  )

  it.each(['text/plain', 'application/xml', 'text/plain;charset=UTF-8'])(
    'a POST of Content-Type %s → 415 BAD_REQUEST',
    async (contentType) => {
      const answer = await send(contentType, JSON.stringify({ query: lists }))
      expect(answer.status).toBe(415)
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
      expect(refusal(answer)).toEqual([
        [
          'BAD_REQUEST',
          'The gateway does not read a body of this Content-Type: send application/json.',
        ],
      ])
      expect(demo.calls()).toEqual([])
    },
  )

  it.each([
    ['variables', '{bad'],
    ['extensions', '{"persistedQuery":'],
  ])('a form whose %s is not JSON → 400 BAD_REQUEST', async (name, value) => {
    const form = new URLSearchParams({ query: lists, [name]: value })
    const answer = await send('application/x-www-form-urlencoded', form.toString())
    expect(answer.status).toBe(400)
    expect(refusal(answer)).toEqual([['BAD_REQUEST', `The ${name} parameter is not JSON.`]])
    expect(demo.calls()).toEqual([])
  })

  it('a form with JSON in its fields is answered', async () => {
    const form = new URLSearchParams({
      query: 'query($n: Int) { lists(first: $n) { totalCount } }',
      variables: '{"n":1}',
    })
    const answer = await send('application/x-www-form-urlencoded', form.toString())
    expect(answer.json().data).toEqual({ lists: { totalCount: demo.data.lists.length } })
  })

  /** A multipart/form-data body of these fields, with its Content-Type. */
  async function multipart(fields: Record<string, string>) {
    const form = new FormData()
    for (const [name, value] of Object.entries(fields)) form.set(name, value)
    const request = new Request('http://form.test', { method: 'POST', body: form })
    return send(request.headers.get('content-type') ?? '', await request.text())
  }

  it.each([
    [{ operations: '{bad' }],
    [{ query: lists }],
    [{ operations: JSON.stringify({ query: lists }), map: '{}' }],
  ])(
    'a multipart body (the upload protocol; the schema takes no file) %j → 415 BAD_REQUEST',
    async (fields) => {
      const answer = await multipart(fields)
      expect(answer.status).toBe(415)
      expect(refusal(answer)).toEqual([
        [
          'BAD_REQUEST',
          'The gateway does not read a body of this Content-Type: send application/json.',
        ],
      ])
      expect(demo.calls()).toEqual([])
    },
  )
})

describe('MAX_BODY_BYTES over real sockets', async () => {
  const url = `${(await serve(stack.gateway.yoga)).url}/graphql`

  /** A POST whose body goes out in chunks, with no Content-Length (Transfer-Encoding: chunked). */
  async function chunked(parts: string[]) {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: Readable.from(parts.map((part) => Buffer.from(part))),
    })
    return { status: response.statusCode, body: (await response.body.json()) as GraphQLBody }
  }
  type GraphQLBody = { data?: unknown; errors?: { extensions?: { code?: string } }[] }

  it('refuses a Content-Length over the limit with 413 before reading the body', async () => {
    const response = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'content-length': '200000',
      },
      // Only a first piece: the answer comes from the header alone.
      body: Readable.from(
        (async function* () {
          yield Buffer.from('{"query":"{ __typename }", "padding": "')
          await new Promise(() => {})
        })(),
      ),
    }).catch((error: unknown) => error as Error)
    if (response instanceof Error) throw response
    expect(response.statusCode).toBe(413)
    const body = (await response.body.json()) as GraphQLBody
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['REQUEST_ENTITY_TOO_LARGE'])
  })

  it('counts a chunked body as it arrives: over the limit, 413; under it, served', async () => {
    const padding = 'x'.repeat(10_000)
    const big = await chunked([
      '{"query":"{ __typename }","extensions":{"padding":"',
      ...Array.from({ length: 12 }, () => padding),
      '"}}',
    ])
    expect(big.status).toBe(413)
    expect(big.body.errors?.map((e) => e.extensions?.code)).toEqual(['REQUEST_ENTITY_TOO_LARGE'])
    const small = await chunked(['{"query":"{ __ty', 'pename }"}'])
    expect(small).toMatchObject({ status: 200, body: { data: { __typename: 'Query' } } })
    expect(small.body.errors).toBeUndefined()
    expect(demo.calls()).toEqual([])
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

  it('keeps a coded error as it is, with or without production: code born with the error', () => {
    const failure = new UpstreamError(
      'RATE_LIMITED',
      'GET /v1/lists',
      'rate limited by the upstream (429)',
      { retryAfterSeconds: 5 },
    )
    for (const dev of [true, false]) {
      // graphql-js wraps a resolver's error like this; the code comes from the error itself.
      const located = new GraphQLError(failure.message, { originalError: failure })
      expect(maskError(located, 'Unexpected error.', dev)).toBe(located)
      expect(located.message).toBe('GET /v1/lists: rate limited by the upstream (429)')
      expect(located.extensions).toEqual({
        code: 'RATE_LIMITED',
        retryable: true,
        retryAfterSeconds: 5,
      })
    }
  })

  describe('tokens', async () => {
    const log = logSink()
    // Callers bring their own tokens; reads in flight are shared between the callers who may.
    const callers = await startStack(
      { production: true, cacheTtlSeconds: 300 },
      {
        logger: createLogger('debug', log.stream),
        tokens: ['secret-caller-token', 'alice', 'bob'],
      },
    )
    const upstream = callers.demo
    const ask = (token: string, query: string) =>
      callers.request({ headers: { authorization: `Bearer ${token}` }, body: { query } })

    it('never logs a token or the upstream URL, and logs one line per operation', async () => {
      upstream.inject({ path: /financials$/, status: 503 })
      const response = await ask(
        'secret-caller-token',
        `query Statements { company(${at}) { financials { totalCount } } }`,
      )
      const body = response.text
      expect(body).toContain('UPSTREAM_ERROR')
      expect(log.text()).toContain('"operation":"Statements"')
      expect(log.text()).toContain('retrying upstream read')
      for (const text of [log.text(), body]) {
        expect(text).not.toContain('secret-caller-token')
        expect(text).not.toContain(upstream.url)
      }
    })

    it('never uses one caller’s token for another, even for the same reads at the same time', async () => {
      upstream.latencyMs = 20
      const query = `{ lists(first: 3) { totalCount } list(listId: ${bigList.id}) { name } }`
      await Promise.all([
        ask('alice', query),
        ask('bob', query),
        ask('alice', query),
        ask('nobody', query),
      ])
      // Each token's reads were made with that token: Alice's two requests shared her two reads
      // (the same token may share), nobody else's were shared with anyone.
      expect(
        upstream
          .calls()
          .map((c) => c.token)
          .sort(),
      ).toEqual(['alice', 'alice', 'bob', 'bob', 'nobody', 'nobody'])
    })
  })
})
