import { GraphQLError } from 'graphql'
import { describe, expect, it } from 'vitest'
import type { Fault } from '../../src/demo-upstream/faults.js'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { maskError } from '../../src/errors/graphql-errors.js'
import { createLogger } from '../../src/observability/logger.js'
import { bugInField, bugInReads } from '../support/bug.js'
import { claes, companyArgs, michiels } from '../support/fixtures.js'
import { logSink } from '../support/log-sink.js'
import { demoToken, startStack } from '../support/stack.js'

/**
 * Every error carries extensions.code, is logged once at the level it deserves, and fails only
 * what it must: bad variables, operations the schema cannot run, an Accept the gateway cannot
 * answer, upstream failures, one failed key of a batch.
 */

const stack = await startStack({ upstreamToken: 'demo-token' })
const { demo } = stack
const { data } = demo

describe('refused before execution, with a code and no upstream call', () => {
  it.each([
    ['a string', '5'],
    ['a fraction', 1.5],
    ['2^31', 2 ** 31],
    ['1e308', 1e308],
    ['a list', [5]],
  ])('an Int variable given %s → BAD_USER_INPUT', async (_what, value) => {
    const { body } = await stack.post('query($n: Int) { lists(first: $n) { totalCount } }', {
      n: value,
    })
    expect(body.data).toBeUndefined()
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT'])
    expect(body.errors?.[0]?.message).toMatch(/\$n/)
    expect(demo.calls()).toEqual([])
  })

  it('a missing required variable, or an enum value that does not exist → BAD_USER_INPUT', async () => {
    const { body } = await stack.post(
      'query($id: Int!, $kind: ListKind) { list(listId: $id) { name } lists(kind: $kind) { totalCount } }',
      { kind: 'EVERYTHING' },
    )
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual([
      'BAD_USER_INPUT',
      'BAD_USER_INPUT',
    ])
    expect(demo.calls()).toEqual([])
  })

  it.each([
    ['a non-null argument', 'query($ids: [ID!] = ["x"]) { nodes(ids: $ids) { id } }', 'ids'],
    ['@include', 'query($v: Boolean = true) { lists @include(if: $v) { totalCount } }', 'v'],
    ['node(id:)', 'query($id: ID = "x") { node(id: $id) { id } }', 'id'],
    [
      'a company number',
      'query($n: String = "0922178703") { company(country: BE, number: $n) { name } }',
      'n',
    ],
  ])(
    'an explicit null for a variable with a default, used in %s → BAD_USER_INPUT',
    async (_where, query, name) => {
      const { status, body } = await stack.post(query, { [name]: null })
      expect(status).toBe(200)
      expect(body.data).toBeUndefined()
      // graphql-js's own words, refused before the operation runs instead of when it does.
      expect(body.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([
        ['BAD_USER_INPUT', expect.stringMatching(/of non-null type .* must not be null/)],
      ])
      expect(demo.calls()).toEqual([])
    },
  )

  it.each(['/x/graphql', '/graphql/', '//graphql', '/health/graphql', '/metrics/graphql'])(
    'GraphQL at %s, beside the endpoint → 404, nothing run',
    async (path) => {
      const response = await stack.request({
        path,
        headers: { accept: 'text/html' },
        body: { query: '{ lists(first: 3) { totalCount } }' },
      })
      expect(response.status).toBe(404)
      expect(response.json().errors?.[0]?.extensions?.code).toBe('NOT_FOUND')
      expect(demo.calls()).toEqual([])
    },
  )

  it('an operationName the document does not hold → OPERATION_RESOLUTION_FAILURE', async () => {
    const response = await stack.request({
      headers: demoToken,
      body: { query: 'query A { lists { totalCount } }', operationName: 'B' },
    })
    expect(response.json().errors?.map((e) => e.extensions?.code)).toEqual([
      'OPERATION_RESOLUTION_FAILURE',
    ])
    expect(demo.calls()).toEqual([])
  })

  it.each([
    ['mutation', 'mutation { deleteEverything }'],
    ['subscription', 'subscription { lists { totalCount } }'],
  ])('a %s → GRAPHQL_VALIDATION_FAILED: the gateway is read-only', async (kind, query) => {
    const { body } = await stack.post(query)
    expect(body.errors?.length).toBeGreaterThan(0)
    for (const error of body.errors ?? []) {
      expect(error.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED')
    }
    expect(body.errors?.map((e) => e.message)).toContain(
      `This gateway is read-only: it has no ${kind}s, only queries.`,
    )
    expect(demo.calls()).toEqual([])
  })

  const listsWith = (accept: string) =>
    stack.request({
      headers: { accept, ...demoToken },
      body: { query: '{ lists { totalCount } }' },
    })

  it.each([
    'text/plain',
    'application/xml',
    'application/json; charset=iso-8859-1',
    'application/json; charset="iso-8859-1"',
    'application/json;q="0"',
    'application/json;q=0',
    '*/*;q=0',
    'text/html, */*;q=0',
    // The most specific range decides: text/event-stream is refused, whatever text/* says.
    'text/event-stream;q=0, text/*',
    'application/*, application/json;q=0, application/graphql-response+json;q=0',
    // Of several weights the lowest counts; a weight that is not one admits nothing.
    'application/json;q=1;q=0',
    'application/json;q=x',
    'application/json;q=',
    'application/json;q=2',
    '*/json',
    `${'text/html, '.repeat(1000)}application/json;q=0`,
  ])('Accept: %s → 406 before any upstream call', async (accept) => {
    const response = await listsWith(accept)
    expect(response.status).toBe(406)
    expect(response.headers.get('accept')).toContain('application/json')
    expect(response.json().errors?.map((e) => e.extensions?.code)).toEqual(['NOT_ACCEPTABLE'])
    expect(demo.calls()).toEqual([])
  })

  it.each([
    '*/*',
    'application/*',
    'application/graphql-response+json',
    'text/html, application/json;q=0.9',
    // A quoted parameter value (RFC 9110 §5.6.6), and an empty header (taken as none).
    'application/json;charset="utf-8"',
    'application/json; charset="UTF-8"; q="0.5"',
    '',
  ])('Accept: %s is answered', async (accept) => {
    const response = await listsWith(accept)
    expect(response.status).toBe(200)
    expect(response.json().data).toEqual({
      lists: { totalCount: data.lists.length },
    })
  })

  it.each([
    ['application/graphql-response+json;q=0, application/json;q=1', 'application/json'],
    ['*/*, application/json;q=0', 'application/graphql-response+json'],
    ['application/*, application/json;q=0', 'application/graphql-response+json'],
    [' Application/JSON ; Q=0 ,\t*/* ', 'application/graphql-response+json'],
    [
      'application/json;q=0.5, application/graphql-response+json;q=0.9',
      'application/graphql-response+json',
    ],
    ['multipart/mixed;q=0, text/event-stream', 'text/event-stream'],
    ['text/event-stream;q=0, multipart/mixed;q=0.5, application/json;q=0', 'multipart/mixed'],
    ['multipart/mixed;deferSpec=20220824, application/json;q=0', 'multipart/mixed'],
  ])('Accept: %s → answered in %s: never a type it weighs q=0', async (accept, type) => {
    const response = await listsWith(accept)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')?.split(';')[0]).toBe(type)
    expect(response.text).toContain(`{"data":{"lists":{"totalCount":${data.lists.length}}}`)
  })
})

describe('an error points at what failed', () => {
  const company = claes
  const at = companyArgs(company)

  it('by its path and its place in the document', async () => {
    const { body } = await stack.post(
      `{\n  ok: company(${at}) { name }\n  bad: company(country: BE, number: "0000000097") { name }\n}`,
    )
    expect(body.data).toEqual({ ok: { name: company.name }, bad: null })
    expect(body.errors).toEqual([
      expect.objectContaining({
        path: ['bad'],
        locations: [{ line: 3, column: 3 }],
        extensions: expect.objectContaining({ code: 'NOT_FOUND' }),
      }),
    ])
  })

  it('a refused argument by its place in the document: the operation did not run, so no path', async () => {
    const { body } = await stack.post(
      `{\n  ok: company(${at}) { name }\n  bad: company(country: BE, number: "x") { name }\n}`,
    )
    expect(body.data).toBeUndefined()
    expect(body.errors).toEqual([
      expect.objectContaining({
        locations: [{ line: 3, column: 3 }],
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', argument: 'number' }),
      }),
    ])
    expect(body.errors?.[0]?.path).toBeUndefined()
  })

  it('a failed connection at the root nulls that field alone: the other root field is answered', async () => {
    demo.inject({ path: '/v1/lists', status: 404, times: 1 })
    demo.inject({ path: '/v1/lists', delayMs: 300 })
    const { body } = await stack.post(
      '{ a: lists(first: 1) { totalCount } b: lists(first: 50) { totalCount } }',
    )
    // Whichever read reached the upstream first failed; the other waited and is there.
    const failed = body.errors?.[0]?.path?.[0] as 'a' | 'b'
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND'])
    expect(body.data).toEqual({
      a: null,
      b: null,
      [failed === 'a' ? 'b' : 'a']: { totalCount: data.lists.length },
    })
  })

  it('one list item failing nulls its own field: the other items are whole', async () => {
    const companies = /\/v1\/lists\/[^/]+\/companies/
    demo.inject({ path: companies, status: 404, times: 1 })
    demo.inject({ path: companies, delayMs: 300 })
    const { body } = await stack.post(
      '{ lists(first: 3) { nodes { listId companies(first: 1) { totalCount } } } }',
    )
    expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['lists', 'nodes', expect.any(Number), 'companies'], 'NOT_FOUND'],
    ])
    const failed = body.errors?.[0]?.path?.[2]
    const lists = data.lists.slice(0, 3)
    expect(body.data).toEqual({
      lists: {
        nodes: lists.map((list, i) => ({
          listId: list.id,
          companies: i === failed ? null : { totalCount: list.amountOfCompanies },
        })),
      },
    })
  })
})

describe('a batch never fails as a whole because one key failed', () => {
  it('one failed name lookup nulls that one name, not the page', async () => {
    const company = michiels
    const broken = data.lookalikesOf(company)[4]?.company
    if (!broken) throw new Error('no fifth lookalike')
    demo.inject({
      path: `/v1/companies/${broken.country}/${broken.companyNumber}/financials`,
      status: 500,
    })
    const { body } = await stack.post(
      `{ company(${companyArgs(company)}) { lookalikes(first: 10) { nodes { number name } } } }`,
    )
    const found = body.data?.company as { lookalikes: { nodes: { name: string | null }[] } }
    const nodes = found.lookalikes.nodes
    expect(nodes.map((n) => n.name)).toEqual(
      data
        .lookalikesOf(company)
        .slice(0, 10)
        .map((l) => (l.company === broken ? null : (l.company.name ?? null))),
    )
    expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['company', 'lookalikes', 'nodes', 4, 'name'], 'UPSTREAM_ERROR'],
    ])
  })
})

describe('an unexpected error, whatever its shape, is INTERNAL_SERVER_ERROR', () => {
  /** A GraphQLError without `extensions`, as a library or a hand-made error may be. */
  const bare = (message: string, originalError?: unknown) => {
    const error = new GraphQLError(message, { path: ['company', 'name'] })
    Object.defineProperties(error, {
      extensions: { value: undefined },
      originalError: { value: originalError },
    })
    return error
  }
  const inner = new TypeError("Cannot read properties of undefined (reading 'x')")

  it.each([
    ['an Error', inner],
    ['a GraphQLError without extensions', bare('boom')],
    ['a GraphQLError without extensions wrapping an Error', bare('boom', inner)],
    ['a chain of GraphQLErrors without extensions', bare('boom', bare('inner', inner))],
    ['a string', 'boom'],
    ['a number', 42],
    ['undefined', undefined],
    ['null', null],
    ['a plain object', { message: 'boom' }],
  ])('%s', (_shape, error) => {
    for (const dev of [true, false]) {
      const masked = maskError(error, 'Unexpected error.', dev)
      expect(masked).toBeInstanceOf(GraphQLError)
      expect((masked as GraphQLError).extensions.code).toBe('INTERNAL_SERVER_ERROR')
      if (error instanceof GraphQLError) expect((masked as GraphQLError).path).toEqual(error.path)
      if (!dev) expect(JSON.stringify(masked)).not.toContain('reading')
    }
  })

  it('a resolver that throws nulls its nullable field alone: HTTP 200, the rest answered', async () => {
    const company = data.companies.find((c) => data.financialsOf(c).length > 0)
    if (!company) throw new Error('no company with statements')
    const bug = bugInField('Company', 'name', inner)
    try {
      const { status, body } = await stack.post(
        `{ company(country: ${company.country}, number: "${company.companyNumber}") {
          number name financials(first: 1) { totalCount } } lists { totalCount } }`,
      )
      expect(bug).toHaveBeenCalled()
      expect(status).toBe(200)
      expect(body.data).toEqual({
        company: {
          number: company.companyNumber,
          name: null,
          financials: { totalCount: data.financialsOf(company).length },
        },
        lists: { totalCount: data.lists.length },
      })
      expect(body.errors?.map((e) => [e.path, e.extensions?.code, e.message])).toEqual([
        [['company', 'name'], 'INTERNAL_SERVER_ERROR', 'Unexpected error.'],
      ])
    } finally {
      bug.mockRestore()
    }
  })
})

describe('an unexpected error inside a nullable field nulls that field only', () => {
  const query = `{ company(${companyArgs(michiels)}) { number
    lookalikes(first: 2) { totalCount } shareholders { name } }
    lists(first: 1) { totalCount } }`

  it.each([
    [['lookalikes'], { shareholders: michielsShareholders() }],
    [['lookalikes', 'relationships'], { shareholders: null }],
  ])(
    'a bug in the reads of %j: HTTP 200, those fields null, the rest answered',
    async (broken, rest) => {
      const bug = bugInReads(broken)
      try {
        const { status, body } = await stack.post(query)
        expect(status).toBe(200)
        expect(body.data).toEqual({
          company: { number: michiels.companyNumber, lookalikes: null, ...rest },
          lists: { totalCount: data.lists.length },
        })
        expect(body.errors?.map((e) => [e.path?.join('.'), e.extensions?.code]).sort()).toEqual(
          (rest.shareholders ? ['lookalikes'] : ['lookalikes', 'shareholders']).map((field) => [
            `company.${field}`,
            'INTERNAL_SERVER_ERROR',
          ]),
        )
      } finally {
        bug.mockRestore()
      }
    },
  )
})

function michielsShareholders() {
  return data.relationshipsOf(michiels).parents.map((p) => ({ name: p.name ?? null }))
}

describe('logs: expected failures once, at their level, with their code', async () => {
  const log = logSink()
  const lines = log.lines
  const logged = await startStack(
    { production: true, upstreamToken: DEMO_TOKEN },
    { logger: createLogger('info', log.stream) },
  )
  const upstream = logged.demo
  const ask = async (query: string, headers: Record<string, string> = {}) => {
    log.clear()
    return logged.request({ headers, body: { query } })
  }
  const statements = `query Statements { company(${companyArgs(claes)}) { name place } }`

  it('an upstream failure is one warn line with code, endpoint and status, never an error with a stack', async () => {
    upstream.inject({ path: /\/financials$/, status: 403 })
    await ask(statements)
    upstream.reset()
    const all = lines()
    expect(all.filter((l) => Number(l.level) >= 50)).toEqual([])
    const failures = all.filter((l) => l.msg === 'upstream read failed')
    expect(failures).toEqual([
      expect.objectContaining({
        level: 40,
        code: 'FORBIDDEN',
        status: 403,
        endpoint: 'GET /v1/companies/{countryCode}/{companyNumber}/financials',
      }),
    ])
    expect(all.find((l) => l.msg === 'operation')).toMatchObject({
      operation: 'Statements',
      outcome: 'partial',
      errors: ['FORBIDDEN'],
    })
    expect(log.text()).not.toContain('"stack"')
  })

  it("a 401 to a caller's own token is the caller's: one info line (warn with the gateway's token)", async () => {
    const own = logged.replica({ upstreamToken: undefined })
    log.clear()
    await own.request({ headers: { authorization: 'Bearer wrong' }, body: { query: statements } })
    expect(lines().filter((l) => l.msg === 'upstream read failed')).toEqual([
      expect.objectContaining({ level: 30, code: 'UNAUTHENTICATED', status: 401 }),
    ])
    upstream.inject({ path: /\/financials$/, status: 401 })
    await ask(statements)
    upstream.reset()
    expect(lines().filter((l) => l.msg === 'upstream read failed')).toEqual([
      expect.objectContaining({ level: 40, code: 'UNAUTHENTICATED', status: 401 }),
    ])
  })

  it('refused operations are logged too, with their codes', async () => {
    await ask(
      'query Costly { lists(first: 500) { nodes { companies(first: 500) { nodes { financials { totalCount } } } } } }',
    )
    expect(lines().filter((l) => l.msg === 'operation')).toEqual([
      expect.objectContaining({
        operation: 'Costly',
        outcome: 'refused',
        errors: ['QUERY_TOO_COSTLY'],
      }),
    ])
    await ask('query Broken { lists { nope } }')
    expect(lines().filter((l) => l.msg === 'operation')).toEqual([
      expect.objectContaining({ outcome: 'refused', errors: ['GRAPHQL_VALIDATION_FAILED'] }),
    ])
    await ask('{ lists { totalCount } }', { accept: 'text/plain' })
    expect(lines().filter((l) => l.msg === 'operation')).toEqual([
      expect.objectContaining({ outcome: 'refused', status: 406 }),
    ])
  })
})

describe('every error says whether trying again may help (extensions.retryable)', () => {
  const fast = stack.replica({ upstreamTimeoutMs: 200 })
  const financials = new RegExp(`/${claes.companyNumber}/financials$`)
  const company = `{ company(${companyArgs(claes)}) { number financials(first: 1) { totalCount } } }`
  const send = (query: string, headers: Record<string, string> = {}) =>
    stack.request({
      headers: { accept: 'application/json', ...demoToken, ...headers },
      body: { query },
    })
  const faulted = (fault: Fault) => {
    demo.inject(fault)
    return send(company)
  }
  /** Each way an error is born, the request that makes it, and whether a retry may succeed. */
  const cases: [string, () => Promise<{ text: string }>, string, boolean][] = [
    [
      'a bad argument',
      () => send('{ company(country: BE, number: "1") { number } }'),
      'BAD_USER_INPUT',
      false,
    ],
    ['graphql-js validation', () => send('{ nope }'), 'GRAPHQL_VALIDATION_FAILED', false],
    ['a document that is not GraphQL', () => send('{'), 'GRAPHQL_PARSE_FAILED', false],
    ['an unknown path', () => stack.request({ path: '/nope' }), 'NOT_FOUND', false],
    [
      'an Accept the gateway cannot serve',
      () => send('{ lists { totalCount } }', { accept: 'text/html' }),
      'NOT_ACCEPTABLE',
      false,
    ],
    [
      'the budget',
      () =>
        send(
          '{ lists(first: 500) { nodes { companies(first: 500) { nodes { financials { totalCount } } } } } }',
        ),
      'QUERY_TOO_COSTLY',
      false,
    ],
    [
      'upstream 503 after retries',
      () => faulted({ path: financials, status: 503 }),
      'UPSTREAM_ERROR',
      true,
    ],
    ['upstream 400', () => faulted({ path: financials, status: 400 }), 'UPSTREAM_ERROR', false],
    [
      'upstream 429',
      () => faulted({ path: financials, status: 429, retryAfter: '0' }),
      'RATE_LIMITED',
      true,
    ],
    ['upstream 404', () => faulted({ path: financials, status: 404 }), 'NOT_FOUND', false],
    ['upstream 403', () => faulted({ path: financials, status: 403 }), 'FORBIDDEN', false],
    [
      'a bad upstream body',
      () => faulted({ path: financials, body: '{"data": [' }),
      'UPSTREAM_BAD_RESPONSE',
      false,
    ],
    [
      'an upstream too slow',
      () => {
        demo.inject({ path: financials, delayMs: 1000 })
        return fast.request({
          headers: { accept: 'application/json', ...demoToken },
          body: { query: company },
        })
      },
      'UPSTREAM_TIMEOUT',
      true,
    ],
  ]

  it.each(cases)('%s: %s, retryable %s', async (_how, make, code, retryable) => {
    const answer = await make()
    const errors =
      (JSON.parse(answer.text) as { errors?: { extensions?: Record<string, unknown> }[] }).errors ??
      []
    expect(errors.map((e) => e.extensions?.code)).toContain(code)
    for (const error of errors) {
      expect(error.extensions).toMatchObject({ code, retryable })
    }
  })

  it('a bug inside a field: INTERNAL_SERVER_ERROR, not retryable', async () => {
    const bug = bugInReads(['lookalikes'])
    try {
      const { body } = await stack.post(
        `{ company(${companyArgs(claes)}) { lookalikes { totalCount } } }`,
      )
      expect(body.errors?.map((e) => e.extensions)).toMatchObject([
        { code: 'INTERNAL_SERVER_ERROR', retryable: false },
      ])
    } finally {
      bug.mockRestore()
    }
  })
})
