import { setTimeout as sleep } from 'node:timers/promises'
import { parse } from 'graphql'
import { describe, expect, it, vi } from 'vitest'
import { SMALL, TRAVERSAL } from '../bench/queries.js'
import { CompiledOperations, expandedFields } from '../src/compiled-execution.js'
import { schema } from '../src/schema/index.js'
import { bothExecutors } from './support/executors.js'
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
if (!list || !company) throw new Error('demo data lacks a big list or a full company')
const other = data.companies.find((c) => c !== company && data.financialsOf(c).length > 0)
if (!other) throw new Error('demo data lacks a second company')
const at = `country: ${company.country}, number: "${company.companyNumber}"`
const globalId = (type: string, key: string) => Buffer.from(`${type}:${key}`).toString('base64url')
const companyId = (c: { country: string; companyNumber: string }) =>
  globalId('Company', `${c.country}:${c.companyNumber}`)

const both = bothExecutors(stack, plain)

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
    [
      'a non-null variable with a default, not sent',
      'query($n: Int! = 2) { lists(first: $n) { totalCount } }',
      undefined,
    ],
    [
      // graphql-jit builds results as object literals, where "__proto__" would set a prototype.
      'aliases that are names of Object.prototype',
      `{ __proto__: lists(first: 1) { constructor: totalCount nodes { __proto__: name toString: listId } } hasOwnProperty: __typename }`,
      undefined,
    ],
    [
      // `number`, not `name`: a name asked beside a refused field is still looked up, and with
      // graphql-js that read lands after the answer, so the calls would differ by timing alone.
      'nodes whose companies each refuse a field',
      `{ nodes(ids: ["${companyId(company)}", "${companyId(other)}"]) { ... on Company { number f: financials(first: -1) { totalCount } } } }`,
      undefined,
    ],
    [
      'nodes with an unknown company before a known one',
      `{ nodes(ids: ["${globalId('Company', 'NL:00000001')}", "${companyId(company)}"]) { ... on Company { name financials(first: 1) { totalCount } } } }`,
      undefined,
    ],
  ])(
    'answers %s as graphql-js does, with the same upstream calls',
    async (_name, query, variables) => {
      const { compiled, reference, compiledCalls, referenceCalls } = await both(query, variables)
      expect(compiled).toEqual(reference)
      expect(compiledCalls).toEqual(referenceCalls)
    },
  )

  it.each([
    [
      "graphql-jit's Date marker",
      '{ company(country: BE, number: "__MAGIC_DATE__33a9e76d_02e0_4128_8e92_3530ad3da74d0) && (globalThis.injected = 1) || new Date(0") { name } }',
    ],
    [
      'the Date marker written with an escape',
      String.raw`{ company(country: BE, number: "\u005F_MAGIC_DATE__33a9e76d_02e0_4128_8e92_3530ad3da74d0) && (globalThis.injected = 1) || new Date(0") { name } }`,
    ],
    [
      "graphql-jit's NaN marker",
      '{ company(country: BE, number: "__MAGIC_NAN__57f286b9_4c20_487f_b409_79804ddcb4f8") { name } }',
    ],
  ])('takes a string holding %s as text, never as code', async (_name, query) => {
    const { compiled, reference } = await both(query)
    expect(compiled).toEqual(reference)
    expect(
      compiled.body.errors?.map((e: { extensions?: { code?: string } }) => e.extensions?.code),
    ).toEqual(['BAD_USER_INPUT'])
    expect((globalThis as { injected?: unknown }).injected).toBeUndefined()
  })

  it('@defer: a failed part nulls only what is in it, and nothing internal shows', async () => {
    const query = `{ company(${at}) { number
      ... @defer(label: "owners") { shareholders { name } }
      ... @defer(label: "peers") { lookalikes(first: 2) { nodes { number name } } } } }`
    const parts = async (gateway: Pick<typeof stack, 'gateway'>) => {
      demo.reset()
      demo.inject({ path: /\/relationships$/, status: 500 })
      demo.inject({ path: /\/lookalikes$/, delayMs: 200 })
      const response = await gateway.gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'multipart/mixed',
          authorization: 'Bearer demo-token',
        },
        body: JSON.stringify({ query }),
      })
      return response.text()
    }
    for (let time = 0; time < 2; time++) {
      const text = await parts(stack)
      expect(text).not.toContain('INSIDE_NULLED_BRANCH')
      const peers = data.lookalikesOf(company).slice(0, 2)
      for (const peer of peers) expect(text).toContain(`"number":"${peer.company.companyNumber}"`)
      expect(text.match(/"name":null/g)?.length ?? 0).toBe(
        (await parts(plain)).match(/"name":null/g)?.length ?? 0,
      )
    }
  })

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

  it('compiles a document the second time it comes, once, and not at all what graphql-jit should not run', async () => {
    const query = `{ company(${at}) { name number } }`
    const before = compiles.count
    await stack.post(query)
    expect(compiles.count).toBe(before)
    await stack.post(query)
    await stack.post(query)
    expect(compiles.count).toBe(before + 1)
    // @defer: graphql-js streams it, every time.
    for (let time = 0; time < 2; time++) {
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
    }
    // Fragments that spread each other twice per level: 2^40 paths once spread out.
    let fragments = 'fragment A0 on Company { name } fragment B0 on Company { number }'
    for (let i = 1; i <= 40; i++) {
      fragments += ` fragment A${i} on Company { ...A${i - 1} ...B${i - 1} }`
      fragments += ` fragment B${i} on Company { ...B${i - 1} ...A${i - 1} }`
    }
    await stack.post(`{ company(${at}) { ...A40 ...B40 } } ${fragments}`)
    const spread = await stack.post(`{ company(${at}) { ...A40 ...B40 } } ${fragments}`)
    expect(spread.body.data).toEqual({
      company: { name: company.name, number: company.companyNumber },
    })
    expect(compiles.count).toBe(before + 1)
    // What graphql-jit would get wrong or make large (hostile review), each sent twice.
    for (const refused of [
      // Literals are written into the code at every path (a 95 KB one made ~14 MB per document;
      // a list of 900 short strings, 86 KB): over 512 characters in all.
      `{ company(${at}) { financials(first: 0, after: "${'x'.repeat(511)}") { totalCount } } }`,
      `{ company(${at}) { contacts(first: 1, departments: [${'"d",'.repeat(130)}]) { totalCount } } }`,
      `query($d: [String!] = [${'"d",'.repeat(130)}]) { company(${at}) { contacts(first: 1, departments: $d) { totalCount } } }`,
      // A skipped first spread made graphql-jit drop the second; a skipped field merged with an
      // included one had its selections run: no directive is compiled.
      '{ ...F @skip(if: true) ...F } fragment F on Query { __typename }',
      '{ ... @include(if: true) { __typename } }',
      `{ company(${at}) @skip(if: true) { name } company(${at}) { number } }`,
      // Resolve infos are named by path keys joined with `_`: `co_idx0_sh_c` was `c.sh[0].co`.
      `{ co_idx0_sh_c: company(${at}) { number } }`,
      `{ idx0: company(${at}) { number } }`,
      `{ Company: company(${at}) { number } }`,
    ]) {
      const first = await stack.post(refused)
      const second = await stack.post(refused)
      expect(second.body).toEqual(first.body)
      expect((await plain.post(refused)).body).toEqual(first.body)
    }
    expect(compiles.count).toBe(before + 1)
  })

  it('keeps compiled operations up to a number of fields in all, least recently used first', () => {
    // graphql-jit's code grows with the fields (about 6 KB each): the bound is on fields, so
    // large documents cannot make the kept code large.
    const operations = new CompiledOperations('always', { fields: 100 })
    const document = (i: number) =>
      parse(`{ ${Array.from({ length: 40 }, (_, n) => `f${i}x${n}: __typename`).join(' ')} }`)
    const [a, b, c] = [document(0), document(1), document(2)]
    const first = operations.for(schema, a, undefined)
    expect(first).toBeDefined()
    expect(operations.for(schema, a, undefined)).toBe(first)
    const second = operations.for(schema, b, undefined)
    expect(second).toBeDefined()
    // 120 fields: `a`, the least recently used, goes.
    const third = operations.for(schema, c, undefined)
    expect(operations.for(schema, c, undefined)).toBe(third)
    const again = operations.for(schema, a, undefined)
    expect(again).toBeDefined()
    expect(again).not.toBe(first)
  })

  it('weighs each operation of a document by its own fields', () => {
    // Hostile review: 17 operations of 17 fields once weighed 17 × 289 and pushed out the rest.
    const operations = new CompiledOperations('always', { fields: 400 })
    const other = parse(
      `{ ${Array.from({ length: 100 }, (_, n) => `x${n}: __typename`).join(' ')} }`,
    )
    const kept = operations.for(schema, other, undefined)
    const names = Array.from({ length: 17 }, (_, o) => `Q${o}`)
    const many = parse(
      names
        .map(
          (name) =>
            `query ${name} { ${Array.from({ length: 17 }, (_, n) => `t${n}: __typename`).join(' ')} }`,
        )
        .join('\n'),
    )
    const compiled = names.map((name) => operations.for(schema, many, name))
    expect(compiled.every(Boolean)).toBe(true)
    // 100 + 289 fields: all kept.
    expect(operations.for(schema, other, undefined)).toBe(kept)
    expect(operations.for(schema, many, 'Q0')).toBe(compiled[0])
  })

  it('leaves to graphql-js the operations of a document that would outweigh the cache', () => {
    // Hostile review: the document dropped itself when its next operation compiled, and each of
    // its operations was compiled again whenever it came twice.
    const operations = new CompiledOperations('always', { fields: 100 })
    const names = ['A', 'B', 'C']
    const document = parse(
      names
        .map(
          (name) =>
            `query ${name} { ${Array.from({ length: 40 }, (_, n) => `t${n}: __typename`).join(' ')} }`,
        )
        .join('\n'),
    )
    const [a, b, c] = names.map((name) => operations.for(schema, document, name))
    expect(a).toBeDefined()
    expect(b).toBeDefined()
    expect(c).toBeUndefined()
    expect(operations.for(schema, document, 'A')).toBe(a)
    expect(operations.for(schema, document, 'B')).toBe(b)
  })

  it('remembers a bounded number of documents, those seen once too', () => {
    // Hostile review: documents seen once were kept (up to 5,000 of them, ~450 KB each for a
    // 5 KB document) after yoga's parser cache had let them go.
    const operations = new CompiledOperations('repeated', { documents: 10 })
    const document = (i: number) => parse(`{ a${i}: __typename }`)
    const first = document(0)
    expect(operations.for(schema, first, undefined)).toBeUndefined()
    for (let i = 1; i <= 10; i++) operations.for(schema, document(i), undefined)
    // Forgotten: its next sighting counts as its first.
    expect(operations.for(schema, first, undefined)).toBeUndefined()
    expect(operations.for(schema, first, undefined)).toBeDefined()
  })

  it('counts fields as spread out, each fragment once', () => {
    const fields = (query: string) => expandedFields(parse(query))
    expect(fields('{ a { b c } d }')).toBe(4)
    expect(fields('{ a { ...F ...F } } fragment F on T { b c { d } }')).toBe(7)
    expect(fields('{ a { ... on T { b } } }')).toBe(2)
    let fragments = 'fragment A0 on T { x }'
    for (let i = 1; i <= 60; i++) fragments += ` fragment A${i} on T { ...A${i - 1} ...A${i - 1} }`
    expect(fields(`{ ...A60 } ${fragments}`)).toBe(301)
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
    const query = `{ a: lists(first: 1) { totalCount } b: list(listId: ${list.id}) { companies(first: 3) { nodes { ...Both } } } }
       fragment Both on Company { f: financials(first: 1) { totalCount } more: lookalikes(first: 2) { nodes { financials(first: 1) { totalCount } } } }`
    // Once without faults, so that it runs compiled next.
    await stack.post(query)
    demo.reset()
    demo.inject({
      path: `/v1/companies/${failing.company.country}/${failing.company.companyNumber}/financials`,
      status: 500,
    })
    demo.inject({ path: /\/lookalikes$/, delayMs: 200 })
    const { body } = await stack.post(query)
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
