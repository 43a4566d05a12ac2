import { describe, expect, it } from 'vitest'
import { bugInReads } from '../support/bug.js'
import { claes, companyArgs, michiels } from '../support/fixtures.js'
import { multipartParts, type Part, type PartError, reassemble } from '../support/incremental.js'
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

  it('turned off by a literal if: false, runs with any Accept', async () => {
    const off = deferred.replace('@defer(label: "money")', '@defer(if: false, label: "money")')
    const response = await send(off, 'application/json')
    expect(response.json().errors).toBeUndefined()
    expect(response.json().data).toMatchObject({ company: { name: company.name } })
  })

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
    const peers = 'lookalikes(minScore: 1.5) { totalCount }'
    const { without, parts, together } = await plainAndInParts(
      `{ company(${companyArgs(claes)}) { number ${peers} } }`,
      `{ company(${companyArgs(claes)}) { number ${peers}
        ... @defer(label: "a") { ${peers} } ... @defer(label: "b") { ${peers} } } }`,
    )
    expect(parts.length).toBeGreaterThan(1)
    expect(shown(together.errors)).toEqual(shown(without.errors))
    expect(shown(together.errors)).toEqual([
      {
        message: 'minScore must be between 0 and 1.',
        path: ['company', 'lookalikes'],
        code: 'BAD_USER_INPUT',
      },
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
