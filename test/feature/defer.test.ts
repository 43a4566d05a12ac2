import { describe, expect, it } from 'vitest'
import { bugInReads } from '../support/bug.js'
import { bigList, claes, companyArgs, companyId, globalId, michiels } from '../support/fixtures.js'
import {
  multipartParts,
  type Part,
  type PartError,
  partsAsTheyArrive,
  reassemble,
} from '../support/incremental.js'
import { costOf, demoToken, startStack } from '../support/stack.js'

/**
 * @defer and @stream: a page shows the list before the financials arrive, over multipart/mixed or
 * text/event-stream, and the upstream budget covers the deferred parts like the rest.
 */

const stack = await startStack()
const { demo } = stack
const company = michiels
const deferred = `{ company(${companyArgs(company)}) { name ... @defer(label: "money") { financials(first: 2) { totalCount } } } }`

const send = (query: string, accept: string) =>
  stack.request({ headers: { accept, ...demoToken }, body: { query } })

describe('@defer', () => {
  it.each(['application/json', 'application/graphql-response+json'])(
    'asked with Accept: %s, is refused before it runs: coded, no upstream call',
    async (accept) => {
      const response = await send(deferred, accept)
      expect(response.json().errors?.map((e) => e.extensions?.code)).toEqual(['NOT_ACCEPTABLE'])
      expect(response.json().data).toBeUndefined()
      expect(demo.calls()).toEqual([])
    },
  )

  it.each([
    ['multipart/mixed;q=0, text/event-stream', 'text/event-stream'],
    ['multipart/mixed;q=0, */*', 'text/event-stream'],
    ['text/event-stream;q=0.5, multipart/*', 'multipart/mixed'],
  ])('asked with Accept: %s, answers in %s: never a type it weighs q=0', async (accept, type) => {
    const response = await send(deferred, accept)
    expect(response.headers.get('content-type')?.split(';')[0]).toBe(type)
    expect(response.text).toContain('"label":"money"')
  })

  it('asked with an Accept that weighs both part-by-part types q=0, is refused before it runs', async () => {
    const response = await send(deferred, 'multipart/*;q=0, text/event-stream;q=0, */*')
    expect(response.json().errors?.map((e) => e.extensions?.code)).toEqual(['NOT_ACCEPTABLE'])
    expect(demo.calls()).toEqual([])
  })

  it('turned off by a literal if: false, runs with any Accept', async () => {
    const off = deferred.replace('@defer(label: "money")', '@defer(if: false, label: "money")')
    const response = await send(off, 'application/json')
    expect(response.json().errors).toBeUndefined()
    expect(response.json().data).toMatchObject({ company: { name: company.name } })
  })

  it.each([
    [
      '@defer(if: $d) with d false',
      `query($d: Boolean!) { company(${companyArgs(company)}) { name ... @defer(if: $d) { financials(first: 2) { totalCount } } } }`,
      { d: false },
      undefined,
    ],
    [
      '@stream(if: $s) with s false',
      'query($s: Boolean!) { lists(first: 2) { nodes @stream(if: $s) { listId } } }',
      { s: false },
      undefined,
    ],
    [
      'another operation of the document than the deferring one',
      `query A { company(${companyArgs(company)}) { name } } query B { company(${companyArgs(company)}) { ... @defer { name } } }`,
      {},
      'A',
    ],
  ])(
    'nothing delivered in parts (%s): answered with Accept: application/json',
    async (_what, query, variables, operationName) => {
      const response = await stack.request({
        headers: { accept: 'application/json', ...demoToken },
        body: { query, variables, operationName },
      })
      expect(response.json().errors).toBeUndefined()
      expect(response.json().data).toBeTruthy()
    },
  )

  it('sends the company first and its financials in a later part over multipart/mixed', async () => {
    const response = await send(deferred, 'multipart/mixed')
    expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/)
    const parts = multipartParts(response)
    expect(parts[0]).toMatchObject({ data: { company: { name: company.name } }, hasNext: true })
    const last = parts.at(-1)
    expect(last?.hasNext).toBe(false)
    expect(parts.flatMap((p) => p.incremental ?? [])).toEqual([
      {
        data: { financials: { totalCount: demo.data.financialsOf(company).length } },
        label: 'money',
        path: ['company'],
      },
    ])
    // The last part reports what the whole operation cost, deferred reads included.
    expect(last?.extensions?.cost?.upstreamCalls).toBe(demo.calls().length)
  })

  const production = stack.replica({ production: true })
  it.each([
    ['development', stack],
    ['production', production],
  ])(
    'a bug inside a deferred nullable field nulls that field only, coded and masked (%s): HTTP 200, every part arrives',
    async (mode, client) => {
      const bug = bugInReads(['lookalikes'])
      try {
        const response = await client.request({
          headers: { accept: 'multipart/mixed', ...demoToken },
          body: {
            query: `{ company(${companyArgs(claes)}) { number
          ... @defer(label: "peers") { lookalikes(first: 2) { totalCount } }
          ... @defer(label: "owners") { shareholders { name } } } }`,
          },
        })
        expect(response.status).toBe(200)
        const parts = multipartParts(response)
        expect(parts[0]).toMatchObject({ data: { company: { number: claes.companyNumber } } })
        const incremental = parts.flatMap((p) => p.incremental ?? [])
        expect(incremental.find((i) => i.label === 'peers')).toMatchObject({
          data: { lookalikes: null },
          errors: [
            {
              path: ['company', 'lookalikes'],
              message: 'Unexpected error.',
              extensions: { code: 'INTERNAL_SERVER_ERROR' },
            },
          ],
        })
        expect(incremental.find((i) => i.label === 'owners')).toEqual({
          data: {
            shareholders: demo.data
              .relationshipsOf(claes)
              .parents.map((p) => ({ name: p.name ?? null })),
          },
          path: ['company'],
          label: 'owners',
        })
        expect(parts.at(-1)?.hasNext).toBe(false)
        // Development shows the bug (yoga's originalError); production never does.
        expect(response.text.includes('reading')).toBe(mode === 'development')
      } finally {
        bug.mockRestore()
      }
    },
  )

  it('a failed part nulls only what is in it: the other parts arrive whole', async () => {
    const held = claes
    demo.inject({ path: /\/relationships$/, status: 500 })
    const response = await send(
      `{ company(${companyArgs(held)}) { number
        ... @defer(label: "owners") { shareholders { name } }
        ... @defer(label: "peers") { lookalikes(first: 2) { nodes { number } } } } }`,
      'multipart/mixed',
    )
    const parts = multipartParts(response)
    expect(parts[0]).toMatchObject({ data: { company: { number: held.companyNumber } } })
    const incremental = parts.flatMap((p) => p.incremental ?? [])
    expect(incremental.find((i) => i.label === 'owners')).toMatchObject({
      data: { shareholders: null },
      errors: [{ path: ['company', 'shareholders'], extensions: { code: 'UPSTREAM_ERROR' } }],
    })
    expect(incremental.find((i) => i.label === 'peers')).toEqual({
      data: {
        lookalikes: {
          nodes: demo.data
            .lookalikesOf(held)
            .slice(0, 2)
            .map((l) => ({ number: l.company.companyNumber })),
        },
      },
      path: ['company'],
      label: 'peers',
    })
  })

  const unknown = globalId('Company', 'BE:0000000097')
  it.each([
    [
      'company',
      '{ company(country: BE, number: "0000000097") { number ... @defer { financials(first: 1) { totalCount } } } }',
      ['company'],
      ['financials'],
    ],
    [
      // Its statements read decides; the lookalikes read started with it is dropped.
      'company, a read in each part',
      '{ company(country: BE, number: "0000000097") { lookalikes(first: 1) { totalCount } ... @defer { financials(first: 1) { totalCount } } } }',
      ['company'],
      ['financials', 'lookalikes'],
    ],
    [
      'company, all deferred',
      '{ company(country: BE, number: "0000000097") { ... @defer { number name } } }',
      ['company'],
      ['financials'],
    ],
    [
      'node',
      `{ node(id: "${unknown}") { id ... on Company @defer { name lookalikes(first: 1) { totalCount } } } }`,
      ['node'],
      ['financials', 'lookalikes'],
    ],
    [
      'nodes',
      `{ nodes(ids: ["${unknown}"]) { ... on Company @defer { number } } }`,
      ['nodes', 0],
      ['financials'],
    ],
  ])(
    'a company the upstream does not know, its fields deferred (%s): null with NOT_FOUND in the first part, found out by its statements read',
    async (_shape, query, path, reads) => {
      const parts = multipartParts(await send(query, 'multipart/mixed'))
      expect(parts).toHaveLength(1)
      expect(parts[0]?.errors).toEqual([
        expect.objectContaining({ path, extensions: { code: 'NOT_FOUND', retryable: false } }),
      ])
      expect(JSON.stringify(parts[0]?.data)).not.toContain('0000000097')
      // The statements read, and maybe the reads started with it (dropped once it answers).
      const made = demo.calls().map((call) => call.path.split('/').at(-1))
      expect(made).toContain('financials')
      expect(reads).toEqual(expect.arrayContaining(made))
    },
  )

  it('streams over text/event-stream too', async () => {
    const response = await send(deferred, 'text/event-stream')
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const events = response.text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as Part)
    expect(events[0]).toMatchObject({ data: { company: { name: company.name } }, hasNext: true })
    expect(events.some((e) => e.incremental?.length)).toBe(true)
  })

  it('counts deferred parts in the estimate: a deferred fan-out over the budget is refused before any call', async () => {
    const response = await send(
      '{ lists(first: 500) { nodes { ... @defer { companies(first: 500) { nodes { financials(first: 1) { totalCount } } } } } } }',
      'multipart/mixed',
    )
    const [part] = multipartParts(response)
    expect(part?.errors?.map((e) => e.extensions?.code)).toEqual(['QUERY_TOO_COSTLY'])
    expect(demo.calls()).toEqual([])
  })

  it('counts each deferred fragment as the payload it is: repeating a selection in deferred fragments cannot multiply the response past MAX_RESULT_OBJECTS', async () => {
    const members =
      'lists(first: 4) { nodes { companies(first: 500) { edges { matchedSince node { name place } } } } }'
    const once = multipartParts(
      await send(`{ ... @defer(label: "d0") { ${members} } }`, 'multipart/mixed'),
    )
    expect(once.flatMap((p) => p.errors ?? [])).toEqual([])
    expect(once.flatMap((p) => p.incremental ?? [])).toHaveLength(1)
    demo.reset()
    // The same selection in 19 deferred fragments (20 directives are allowed): 19 payloads of it.
    const copies = Array.from({ length: 19 }, (_, i) => `... @defer(label: "d${i}") { ${members} }`)
    const [refused] = multipartParts(await send(`{ ${copies.join(' ')} }`, 'multipart/mixed'))
    expect(refused?.errors?.map((e) => e.extensions?.code)).toEqual(['QUERY_TOO_COSTLY'])
    expect(demo.calls()).toEqual([])
  })

  /** The answer without @defer and the parts with it, each part's errors and data put together. */
  async function plainAndInParts(plain: string, inParts: string) {
    const without = (await stack.post(plain)).body
    const parts = multipartParts(await send(inParts, 'multipart/mixed'))
    return { without, parts, together: reassemble(parts) }
  }
  const shown = (errors: PartError[] | undefined) =>
    errors?.map(({ message, path, extensions }) => ({ message, path, code: extensions?.code }))

  it('reports the error of a field asked in several parts once, as the answer without @defer does', async () => {
    demo.inject({ path: /\/lookalikes$/, status: 403 })
    const peers = 'lookalikes { totalCount }'
    const { without, parts, together } = await plainAndInParts(
      `{ company(${companyArgs(claes)}) { number ${peers} } }`,
      `{ company(${companyArgs(claes)}) { number ${peers}
        ... @defer(label: "a") { ${peers} } ... @defer(label: "b") { ${peers} } } }`,
    )
    expect(parts.length).toBeGreaterThan(1)
    expect(shown(together.errors)).toEqual(shown(without.errors))
    expect(shown(together.errors)).toEqual([
      { message: expect.any(String), path: ['company', 'lookalikes'], code: 'FORBIDDEN' },
    ])
    expect(together.data).toEqual(without.data)
  })

  it('estimates the reads of a selection asked again in a deferred part once: what fits the budget without @defer fits with it', async () => {
    // 1 read of the lists, then 1 of each list's companies: 501 calls at most, under 1,000.
    const members = 'lists(first: 500) { nodes { companies(first: 1) { totalCount } } }'
    const { without, parts, together } = await plainAndInParts(
      `{ ${members} }`,
      `{ ${members} ... @defer { ${members} } }`,
    )
    expect(without.errors).toBeUndefined()
    expect(together.errors).toEqual([])
    expect(together.data).toEqual(without.data)
    const cost = parts.at(-1)?.extensions?.cost
    expect(cost?.estimated).toBe(costOf(without).estimated)
    // Read once: the lists, then each list's companies; the answer without @defer made as many.
    expect(cost?.upstreamCalls).toBe(costOf(without).upstreamCalls)
    expect(demo.calls()).toHaveLength(2 * (1 + demo.data.lists.length))
  })
})

describe('@defer: the first part waits for no deferred read', () => {
  /** The parts of a multipart/mixed answer, each as it arrives. */
  const partsOf = async (query: string) =>
    partsAsTheyArrive(
      await stack.gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...demoToken },
        body: JSON.stringify({ query }),
      }),
    )
  const rest = async (parts: AsyncGenerator<Part>) => {
    const later: Part[] = []
    for await (const part of parts) later.push(part)
    return later
  }
  /** The upstream calls so far: the resource read, its limit if any, and its answer's status. */
  const calls = () =>
    demo.calls().map(({ path, query, status }) => [path.split('/').at(-1), query.limit, status])
  const header = 'fragment Header on Company { id name place }'
  const financials = 'fragment Financials on Company { financials(first: 2) { totalCount } }'
  const lookalikes = 'fragment Lookalikes on Company { lookalikes(first: 2) { totalCount } }'
  const statements = demo.data.financialsOf(claes).length
  const peers = demo.data.lookalikesOf(claes).length

  it("sends a company page in Relay's order (…Header …Financials @defer …Lookalikes): the statements read, which names it, and the lookalikes read start together; the deferred part takes the same statements", async () => {
    const held = demo.hold(/\/financials$/)
    const answer = partsOf(`query Page { company(${companyArgs(claes)}) {
      ...Header ...Financials @defer(label: "fin") ...Lookalikes } }
      ${header} ${financials} ${lookalikes}`)
    // Both sent before the statements answer: the lookalikes read waits for no check.
    await demo.waitForCalls((received) => received.length === 2)
    expect(calls().sort()).toEqual([
      ['financials', '500', undefined],
      ['lookalikes', undefined, 200],
    ])
    held.release()
    const parts = await answer
    expect((await parts.next()).value).toEqual({
      data: {
        company: {
          id: companyId(claes),
          name: claes.name,
          place: claes.place,
          lookalikes: { totalCount: peers },
        },
      },
      hasNext: true,
    })
    expect((await rest(parts)).flatMap((p) => p.incremental ?? [])).toEqual([
      { data: { financials: { totalCount: statements } }, label: 'fin', path: ['company'] },
    ])
    expect(demo.calls()).toHaveLength(2)
  })

  it('starts a deferred read with the company’s statements read, not after it: it waits for no check', async () => {
    const held = demo.hold(/\/financials$/)
    const answer = partsOf(
      `{ company(${companyArgs(claes)}) { name ...Lookalikes @defer(label: "peers") } } ${lookalikes}`,
    )
    await demo.waitForCalls((received) =>
      received.some((c) => c.path.endsWith('/lookalikes') && c.status === 200),
    )
    held.release()
    const parts = await answer
    expect((await parts.next()).value).toEqual({
      data: { company: { name: claes.name } },
      hasNext: true,
    })
    expect((await rest(parts)).flatMap((p) => p.incremental ?? [])).toEqual([
      { data: { lookalikes: { totalCount: peers } }, label: 'peers', path: ['company'] },
    ])
  })

  it('sends a company’s name while another company’s deferred read is held: each company’s check waits for no other', async () => {
    const held = demo.hold(/\/relationships$/)
    const parts = await partsOf(`{ other: company(${companyArgs(michiels)}) { name }
      ... @defer(label: "owners") { known: company(${companyArgs(claes)}) { shareholders { name } } } }`)
    expect((await parts.next()).value).toEqual({
      data: { other: { name: michiels.name } },
      hasNext: true,
    })
    held.release()
    const later = (await rest(parts)).flatMap((p) => p.incremental ?? [])
    expect(later.map(({ label, path }) => [label, path])).toEqual([['owners', []]])
    expect(later[0]?.errors).toBeUndefined()
  })

  it.each([
    ['the upstream does not know (404)', '0000000097', undefined, null, ['other'], 'NOT_FOUND'],
    [
      'whose statements fail (503)',
      michiels.companyNumber,
      503,
      { name: null },
      ['other', 'name'],
      'UPSTREAM_ERROR',
    ],
  ])(
    "sends a company %s while another company's deferred read is held: its statements' failure waits for no read of a later part",
    async (_what, number, status, other, path, code) => {
      const statements = new RegExp(`/${number}/financials$`)
      if (status) demo.inject({ path: statements, status })
      const owners = demo.hold(/\/relationships$/)
      const check = demo.hold(statements)
      // Not awaited yet: the answer's headers come with its first part.
      const answer = partsOf(`{ other: company(country: BE, number: "${number}") { name }
        known: company(${companyArgs(claes)}) { ...Lookalikes
          ... @defer(label: "owners") { shareholders { name } } } } ${lookalikes}`)
      // The statements read fails only once the deferred read is surely in flight.
      await demo.waitForCalls(
        (received) =>
          received.some((c) => c.path.endsWith('/relationships')) &&
          received.some((c) => statements.test(c.path)),
      )
      check.release()
      const parts = await answer
      const first = (await parts.next()).value as Part
      expect(first).toMatchObject({
        data: { other, known: { lookalikes: { totalCount: peers } } },
        hasNext: true,
      })
      expect(first.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[path, code]])
      owners.release()
      const shareholders = demo.data
        .relationshipsOf(claes)
        .parents.map((p) => ({ name: p.name ?? null }))
      expect((await rest(parts)).flatMap((p) => p.incremental ?? [])).toEqual([
        { data: { shareholders }, label: 'owners', path: ['known'] },
      ])
    },
  )

  it("takes a company's name from its own statements read only, never from another branch's read, however early it answered: the same answer with and without @defer", async () => {
    const member = demo.data.list(bigList.id)?.members[0]?.company
    if (!member) throw new Error('no member')
    const statements = new RegExp(`/${member.companyNumber}/financials$`)
    demo.inject({ path: statements, status: 503 })
    const list = `list(listId: ${bigList.id}) { companies(first: 1) { nodes { number name } } }`
    const query = (defer: string) =>
      `{ company(${companyArgs(member)}) { name } ... ${defer} { ${list} } }`
    // With @defer, the list read (which names the same company) answers before the statements
    // read fails.
    const check = demo.hold(statements)
    const answer = partsOf(query('@defer(label: "list")'))
    await demo.waitForCalls((received) =>
      received.some((c) => c.path.endsWith('/companies') && c.status === 200),
    )
    check.release()
    const [first, ...later] = [...(await rest(await answer))]
    expect(first).toMatchObject({ data: { company: { name: null } }, hasNext: true })
    expect(first?.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['company', 'name'], 'UPSTREAM_ERROR'],
    ])
    expect(later.flatMap((p) => p.incremental ?? []).map((i) => i.label)).toEqual(['list'])
    // In one payload: the same. The list's member is named by the list read.
    demo.reset()
    demo.inject({ path: statements, status: 503 })
    const whole = (await stack.post(query(''))).body
    expect(whole.data).toEqual({
      company: { name: null },
      list: { companies: { nodes: [{ number: member.companyNumber, name: member.name }] } },
    })
  })

  it.each([
    [
      'company',
      `{ company(${companyArgs(claes)}) { name ...Lookalikes @defer(label: "peers") } }`,
      { company: { name: claes.name } },
      ['company'],
    ],
    [
      'node',
      `{ node(id: "${companyId(claes)}") { id ... on Company { ...Lookalikes @defer(label: "peers") } } }`,
      { node: { id: companyId(claes) } },
      ['node'],
    ],
  ])(
    'sends a %s whose own part reads nothing while its deferred read is held: checked by its statements read',
    async (_field, query, data, path) => {
      const held = demo.hold(/\/lookalikes$/)
      const parts = await partsOf(`${query} ${lookalikes}`)
      expect((await parts.next()).value).toEqual({ data, hasNext: true })
      await demo.waitForCalls((received) => received.length === 2)
      expect(calls().sort()).toEqual([
        ['financials', '500', 200],
        ['lookalikes', undefined, undefined],
      ])
      held.release()
      const later = await rest(parts)
      expect(later.flatMap((p) => p.incremental ?? [])).toEqual([
        { data: { lookalikes: { totalCount: peers } }, label: 'peers', path },
      ])
      expect(demo.calls()).toHaveLength(2)
      expect(later.at(-1)?.extensions?.cost).toMatchObject({ estimated: 2, upstreamCalls: 2 })
    },
  )

  it('counts the statements read in the estimate: an operation over the budget with it is refused before any call', async () => {
    const query = `{ company(${companyArgs(claes)}) { name ...Lookalikes @defer(label: "peers") } } ${lookalikes}`
    const ask = (maxOperationCost: number) =>
      stack
        .replica({ maxOperationCost })
        .request({ headers: { accept: 'multipart/mixed', ...demoToken }, body: { query } })
    const refused = multipartParts(await ask(1))
    expect(refused[0]?.errors?.map((e) => e.extensions?.code)).toEqual(['QUERY_TOO_COSTLY'])
    expect(refused[0]?.extensions?.cost).toMatchObject({ estimated: 2, upstreamCalls: 0 })
    expect(demo.calls()).toEqual([])
    const fits = multipartParts(await ask(2))
    expect(fits.flatMap((p) => [...(p.errors ?? []), ...(p.incremental ?? [])])).toEqual([
      { data: { lookalikes: { totalCount: peers } }, label: 'peers', path: ['company'] },
    ])
    expect(demo.calls()).toHaveLength(2)
  })

  const page = (defer: string) =>
    `query Page { company(${companyArgs(claes)}) {
      number ...Financials ${defer} ...Lookalikes } } ${financials} ${lookalikes}`

  it('keeps the failure of a deferred read in its part, when it comes first in the document and the read of the first part fails too', async () => {
    demo.inject({ path: /\/financials$/, status: 500 })
    demo.inject({ path: /\/lookalikes$/, status: 403 })
    const parts = multipartParts(await send(page('@defer(label: "fin")'), 'multipart/mixed'))
    expect(parts[0]).toMatchObject({
      data: { company: { number: claes.companyNumber, lookalikes: null } },
      errors: [{ path: ['company', 'lookalikes'], extensions: { code: 'FORBIDDEN' } }],
    })
    expect(parts.flatMap((p) => p.incremental ?? [])).toMatchObject([
      {
        data: { financials: null },
        errors: [{ path: ['company', 'financials'], extensions: { code: 'UPSTREAM_ERROR' } }],
        label: 'fin',
      },
    ])
  })

  it('nulls a company none of whose reads succeed when its statements are refused (403): in the first part, as without @defer', async () => {
    demo.inject({ path: /\/financials$/, status: 403 })
    demo.inject({ path: /\/lookalikes$/, status: 500 })
    const refused = {
      data: { company: null },
      errors: [{ path: ['company'], extensions: { code: 'FORBIDDEN' } }],
    }
    expect((await send(page(''), 'application/json')).json()).toMatchObject(refused)
    const parts = multipartParts(await send(page('@defer(label: "fin")'), 'multipart/mixed'))
    expect(parts).toHaveLength(1)
    expect(parts[0]).toMatchObject(refused)
  })

  it('answers the company when its check fails for a reason that says nothing of it (a 500) and only deferred fields read: each reports its own failure, in its part', async () => {
    demo.inject({ path: /\/financials$/, status: 500 })
    const parts = multipartParts(
      await send(
        `{ company(${companyArgs(claes)}) { number ...Financials @defer(label: "fin") } } ${financials}`,
        'multipart/mixed',
      ),
    )
    expect(parts[0]).toEqual({
      data: { company: { number: claes.companyNumber } },
      hasNext: true,
    })
    expect(parts.flatMap((p) => p.incremental ?? [])).toMatchObject([
      {
        data: { financials: null },
        errors: [{ path: ['company', 'financials'], extensions: { code: 'UPSTREAM_ERROR' } }],
        label: 'fin',
      },
    ])
    // The check's read is the company's statements, which the deferred field reads too: one call.
    expect(calls()).toEqual([['financials', '500', 500]])
  })
})

describe('@stream', () => {
  const streamed = (directive: string) =>
    `query${directive.includes('$n') ? '($n: Int)' : ''} { lists(first: 3) { nodes ${directive} { name } } }`

  it('sends the first initialCount items at once and the rest in later parts', async () => {
    const response = await stack.request({
      headers: { accept: 'multipart/mixed', ...demoToken },
      body: { query: streamed('@stream(initialCount: 1)') },
    })
    const parts = multipartParts(response)
    const names = demo.data.lists.slice(0, 3).map((l) => ({ name: l.name }))
    expect(parts[0]).toMatchObject({ data: { lists: { nodes: names.slice(0, 1) } }, hasNext: true })
    expect(parts.flatMap((p) => p.incremental ?? []).flatMap((i) => i.items)).toEqual(
      names.slice(1),
    )
  })

  it.each([
    ['a negative literal', '@stream(initialCount: -1)', {}],
    ['a literal null', '@stream(initialCount: null)', {}],
    ['a negative variable', '@stream(initialCount: $n)', { n: -1 }],
    ['a null variable', '@stream(initialCount: $n)', { n: null }],
  ])(
    'with %s for initialCount, is refused before it runs: BAD_USER_INPUT, no upstream call',
    async (_what, directive, variables) => {
      const response = await stack.request({
        headers: { accept: 'multipart/mixed', ...demoToken },
        body: { query: streamed(directive), variables },
      })
      const [part, ...others] = multipartParts(response)
      expect(others).toEqual([])
      expect(part?.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([
        ['BAD_USER_INPUT', '@stream’s initialCount must be 0 or more.'],
      ])
      expect(part?.data).toBeUndefined()
      expect(demo.calls()).toEqual([])
    },
  )

  it('turned off by if: false, runs whatever its initialCount', async () => {
    const response = await send(
      streamed('@stream(if: false, initialCount: -1)'),
      'application/json',
    )
    expect(response.json().errors).toBeUndefined()
    expect(response.json().data).toEqual({
      lists: { nodes: demo.data.lists.slice(0, 3).map((l) => ({ name: l.name })) },
    })
  })
})

describe('@defer: the same first part every time (the repros of issue 27)', () => {
  /** The first part of an answer in parts, while the reads `held` holds are held. */
  const firstPart = async (query: string) => {
    const parts = partsAsTheyArrive(
      await stack.gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...demoToken },
        body: JSON.stringify({ query }),
      }),
    )
    const first = (await parts.next()).value as Part
    return {
      first: { data: first.data, errors: first.errors?.map((e) => [e.path, e.extensions?.code]) },
      rest: (async () => {
        for await (const _ of parts);
      })(),
    }
  }

  it('a company whose statements fail beside a list whose deferred members are held: the same first part, twice, not waiting for them', async () => {
    const statements = new RegExp(`/${claes.companyNumber}/financials$`)
    demo.inject({ path: statements, status: 503 })
    const members = demo.hold(/\/companies$/)
    const query = `{ company(${companyArgs(claes)}) { number name }
      list(listId: ${bigList.id}) { name ... @defer { companies(first: 3) { nodes { number } } } } }`
    // The second time the list's type is known: its members read starts beside its details.
    const answers = []
    for (let time = 0; time < 2; time++) answers.push(await firstPart(query))
    expect(answers[1]?.first).toEqual(answers[0]?.first)
    expect(answers[0]?.first).toEqual({
      data: { company: { number: claes.companyNumber, name: null }, list: { name: bigList.name } },
      errors: [[['company', 'name'], 'UPSTREAM_ERROR']],
    })
    members.release()
    await Promise.all(answers.map((a) => a?.rest))
  })

  it("a company's name in the first part never comes from another company's deferred read, however early it lands", async () => {
    // `a` lists `b` among its shareholders: its deferred relationships read carries b's name.
    const a = demo.data.companies.find((c) =>
      demo.data.relationshipsOf(c).parents.some((p) => p.identifier),
    )
    const b = a && demo.data.relationshipsOf(a).parents.find((p) => p.identifier)?.identifier
    if (!a || !b) throw new Error('no company with a shareholder company')
    demo.inject({ path: new RegExp(`/${b.companyNumber}/financials$`), body: '{"identifier": ' })
    const query = `{ a: company(${companyArgs(a)}) { number ... @defer { shareholders { name } } }
      b: company(${companyArgs(b)}) { name } }`
    const expected = {
      data: { a: { number: a.companyNumber }, b: { name: null } },
      errors: [[['b', 'name'], 'UPSTREAM_BAD_RESPONSE']],
    }
    // Its relationships read answered first, then held until after the first part.
    const early = await firstPart(query)
    expect(early.first).toEqual(expected)
    await early.rest
    const held = demo.hold(/\/relationships$/)
    const late = await firstPart(query)
    expect(late.first).toEqual(expected)
    held.release()
    await late.rest
    // Asked alone, the same.
    expect((await stack.post(`{ b: company(${companyArgs(b)}) { name } }`)).body.data).toEqual({
      b: { name: null },
    })
  })
})
