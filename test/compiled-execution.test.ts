import { setTimeout as sleep } from 'node:timers/promises'
import { parse } from 'graphql'
import { describe, expect, it, vi } from 'vitest'
import { SMALL, TRAVERSAL } from '../bench/queries.js'
import { expandedFields } from '../src/compiled-execution.js'
import { startStack } from './support/stack.js'

/**
 * Operations run compiled by graphql-jit (src/compiled-execution.ts) and answer exactly as
 * through graphql-js: data, errors with their paths, locations and codes, and upstream calls.
 */

// Counts what graphql-jit is asked to compile, to show what runs compiled and what does not.
const compiles = vi.hoisted(() => ({ count: 0 }))
vi.mock('graphql-jit', async (importOriginal) => {
  const actual = await importOriginal<typeof import('graphql-jit')>()
  return {
    ...actual,
    compileQuery: (...args: Parameters<typeof actual.compileQuery>) => {
      compiles.count++
      return actual.compileQuery(...args)
    },
  }
})

const stack = await startStack({ upstreamToken: 'demo-token' })
// The same gateway with every operation through graphql-js, on the same demo upstream.
const plain = stack.replica({ compiledExecution: false })
const { demo } = stack
const { data } = demo
const list = data.lists.find((l) => l.amountOfCompanies >= 40)
const company = data.companies.find(
  (c) =>
    c.name !== undefined &&
    data.financialsOf(c).length >= 5 &&
    data.relationshipsOf(c).parents.length > 0,
)
if (!list || !company) throw new Error('demo data lacks a big list or a full company')
const at = `country: ${company.country}, number: "${company.companyNumber}"`
const globalId = (type: string, key: string) => Buffer.from(`${type}:${key}`).toString('base64url')

/** Both executors' answers to one operation, and the upstream calls each made. */
async function both(query: string, variables?: Record<string, unknown>) {
  demo.reset()
  const compiled = await stack.post(query, variables)
  const compiledCalls = demo
    .calls()
    .map((c) => c.path)
    .sort()
  demo.reset()
  const reference = await plain.post(query, variables)
  const referenceCalls = demo
    .calls()
    .map((c) => c.path)
    .sort()
  return { compiled, reference, compiledCalls, referenceCalls }
}

describe('compiled execution', () => {
  it.each([
    ['the traversal', TRAVERSAL, { listId: list.id, companies: 40 }],
    [
      'a company with 5 statements',
      SMALL,
      { country: company.country, number: company.companyNumber },
    ],
    [
      'aliases, fragments and @skip/@include on spreads',
      `query($yes: Boolean!, $no: Boolean!) { a: company(${at}) { ...F @include(if: $yes) ...G @skip(if: $yes) n: name } b: company(${at}) { ...G @include(if: $no) number } }
       fragment F on Company { first: financials(first: 1) { nodes { endDate } } shareholders { percentage } }
       fragment G on Company { place }`,
      { yes: true, no: false },
    ],
    [
      'nodes with a malformed, an unknown and a list ID',
      `{ nodes(ids: ["${globalId('Company', `${company.country}:${company.companyNumber}`)}", "x", "${globalId('Company', 'NL:00000001')}", "${globalId('List', String(list.id))}"]) { id ... on Company { name } ... on List { listId } } }`,
      undefined,
    ],
    [
      'a bad argument and an unknown company',
      `{ a: company(country: BE, number: "x") { name } b: company(country: BE, number: "0000000097") { name } }`,
      undefined,
    ],
    ['a bad variable', 'query($n: Int!) { lists(first: $n) { totalCount } }', { n: 'many' }],
  ])(
    'answers %s as graphql-js does, with the same upstream calls',
    async (_name, query, variables) => {
      const { compiled, reference, compiledCalls, referenceCalls } = await both(query, variables)
      expect(compiled).toEqual(reference)
      expect(compiledCalls).toEqual(referenceCalls)
    },
  )

  it('keeps the locations of errors', async () => {
    const { body } = await stack.post(
      `{\n  ok: company(${at}) { name }\n  bad: company(country: BE, number: "x") { name }\n}`,
    )
    expect(body.errors).toEqual([
      expect.objectContaining({
        path: ['bad'],
        locations: [{ line: 3, column: 3 }],
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
      }),
    ])
  })

  it('runs the operation named, of a document with several', async () => {
    const document = `query Name { company(${at}) { name } } query Number { company(${at}) { number } }`
    for (const [operationName, field] of [
      ['Name', 'name'],
      ['Number', 'number'],
    ] as const) {
      const response = await stack.gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
        body: JSON.stringify({ query: document, operationName }),
      })
      const body = (await response.json()) as { data: { company: Record<string, string> } }
      expect(Object.keys(body.data.company)).toEqual([field])
    }
  })

  it('compiles a document once, and not at all what graphql-jit should not run', async () => {
    const query = `{ company(${at}) { name number } }`
    const before = compiles.count
    await stack.post(query)
    await stack.post(query)
    expect(compiles.count).toBe(before + 1)
    // @defer: graphql-js streams it.
    const deferred = await stack.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'multipart/mixed',
        authorization: 'Bearer demo-token',
      },
      body: JSON.stringify({ query: `{ company(${at}) { name ... @defer { number } } }` }),
    })
    expect(await deferred.text()).toContain(`"number":"${company.companyNumber}"`)
    // Fragments that spread each other twice per level: 2^40 paths once spread out.
    let fragments = 'fragment A0 on Company { name } fragment B0 on Company { number }'
    for (let i = 1; i <= 40; i++) {
      fragments += ` fragment A${i} on Company { ...A${i - 1} ...B${i - 1} }`
      fragments += ` fragment B${i} on Company { ...B${i - 1} ...A${i - 1} }`
    }
    const spread = await stack.post(`{ company(${at}) { ...A40 ...B40 } } ${fragments}`)
    expect(spread.body.data).toEqual({
      company: { name: company.name, number: company.companyNumber },
    })
    expect(compiles.count).toBe(before + 1)
  })

  it('counts fields as spread out, each fragment once', () => {
    const fields = (query: string) => expandedFields(parse(query))
    expect(fields('{ a { b c } d }')).toBe(4)
    expect(fields('{ a { ...F ...F } } fragment F on T { b c { d } }')).toBe(7)
    expect(fields('{ a { ... on T { b } } }')).toBe(2)
    let fragments = 'fragment A0 on T { x }'
    for (let i = 1; i <= 60; i++) fragments += ` fragment A${i} on T { ...A${i - 1} ...A${i - 1} }`
    expect(fields(`{ ...A60 } ${fragments}`)).toBe(2001)
  })
})

describe('a branch an error has nulled', () => {
  it('reads nothing more for it, while the rest of the operation goes on', async () => {
    // b's statements fail and null b (financials is non-null up to b); b's lookalikes were still
    // on their way, their statements must never be read. a is untouched.
    // (b's members' own statements are read once each, for f.)
    const members = list.members.slice(0, 3)
    const [failing] = members
    if (!failing) throw new Error('empty list')
    demo.inject({
      path: `/v1/companies/${failing.company.country}/${failing.company.companyNumber}/financials`,
      status: 500,
    })
    demo.inject({ path: /\/lookalikes$/, delayMs: 200 })
    const { body } = await stack.post(
      `{ a: lists(first: 1) { totalCount } b: list(listId: ${list.id}) { companies(first: 3) { nodes { ...Both } } } }
       fragment Both on Company { f: financials(first: 1) { totalCount } more: lookalikes(first: 2) { nodes { financials(first: 1) { totalCount } } } }`,
    )
    expect(body.data).toEqual({ a: { totalCount: data.lists.length }, b: null })
    expect(body.errors?.map((e) => e.path)).toEqual([['b', 'companies', 'nodes', 0, 'f']])
    await sleep(400)
    const lookalikeStatements = demo
      .calls()
      .filter(
        (c) =>
          c.path.endsWith('/financials') &&
          !members.some((m) => c.path.includes(m.company.companyNumber)),
      )
    expect(lookalikeStatements).toEqual([])
  })
})
