import { setTimeout as sleep } from 'node:timers/promises'
import { type GraphQLObjectType, getNamedType, isCompositeType, isObjectType } from 'graphql'
import { describe, expect, it } from 'vitest'
import { DEMO_TOKEN, type ReceivedCall } from '../../src/demo-upstream/server.js'
import { schema } from '../../src/schema/index.js'
import { RELATIONSHIP_FAN_OUT } from '../../src/schema/upstream-cost.js'
import { graphql } from '../gql/index.js'
import { bigList, claes, companyArgs, companyId, globalId } from '../support/fixtures.js'
import { serve } from '../support/serve.js'
import { type Client, costOf, demoToken, startStack } from '../support/stack.js'

/**
 * The upstream budget (MAX_OPERATION_COST): estimated before execution from the costs the
 * fields declare, and drawn from by every HTTP request while the operation runs.
 */

const stack = await startStack({ upstreamToken: DEMO_TOKEN })
const { demo } = stack
const { data } = demo
// Replicas with small budgets, for reads past them.
const twelve = stack.replica({ maxOperationCost: 12 })
const fifteen = stack.replica({ maxOperationCost: 15 })
const big = bigList
// A company with every resource, for the walk over every field of the schema.
const full = claes
const at = companyArgs(full)

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

describe('the estimate before execution', () => {
  it('a normal frontend page (50 companies, latest statement, 3 named lookalikes, shareholders) fits the default budget', async () => {
    const result = await stack.execute(FrontendPage, { listId: big.id })
    expect(result.errors).toBeUndefined()
    const cost = costOf(result)
    // list + members + 50 × (statements + lookalikes + 3 lookalike names + relationships)
    expect(cost).toEqual({
      estimated: 2 + 50 * 6,
      limit: 1000,
      upstreamCalls: demo.calls().length,
      cacheHits: 0,
    })
    expect(cost.upstreamCalls).toBeLessThanOrEqual(cost.estimated)
  })

  it('refuses a variable default over the budget, with no upstream call', async () => {
    const { body } = await stack.post(
      'query($n: Int = 500) { list(listId: 1001) { companies(first: $n) { nodes { lookalikes(first: 3) { nodes { name } } } } } }',
    )
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['QUERY_TOO_COSTLY'])
    expect(costOf(body)).toEqual({
      estimated: 2 + 500 * 4,
      limit: 1000,
      upstreamCalls: 0,
      cacheHits: 0,
    })
    expect(demo.calls()).toEqual([])
  })

  it('refuses a fan-out to hundreds of thousands of calls with QUERY_TOO_COSTLY and no upstream call', async () => {
    const { status, body } = await stack.post(
      '{ lists(first: 500) { nodes { companies(first: 500) { nodes { financials(first: 1) { totalCount } } } } } }',
    )
    expect(status).toBe(200)
    expect(body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COSTLY')
    expect(body.errors?.[0]?.message).toMatch(/up to 250501 upstream calls/)
    expect(body.extensions).toEqual({
      cost: { estimated: 250_501, limit: 1000, upstreamCalls: 0, cacheHits: 0 },
    })
    expect(demo.calls()).toEqual([])
  })

  it('refuses a response of more objects than MAX_RESULT_OBJECTS, though it costs two upstream calls', async () => {
    // One list read, one page of members, repeated under 30 aliases and 2 IDs: 60,000 edges.
    const page = 'companies(first: 500) { edges { cursor node { id country number name place } } }'
    const aliases = Array.from({ length: 30 }, (_, i) => `p${i}: ${page}`).join(' ')
    const list = globalId('List', big.id)
    const { body } = await stack.post(
      `query($ids: [ID!]!) { nodes(ids: $ids) { ... on List { ${aliases} } } }`,
      { ids: [list, list] },
    )
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['QUERY_TOO_COSTLY'])
    expect(body.errors?.[0]?.message).toMatch(/up to \d+ objects, more than the 20000 allowed/)
    expect(demo.calls()).toEqual([])
  })

  it('estimates fragments that spread each other in time proportional to the document', async () => {
    // 60 levels, each fragment spreading both of the level below: 2^60 paths when expanded.
    let fragments = `fragment A0 on Company { financials(first: 1) { totalCount } }
      fragment B0 on Company { name }`
    for (let i = 1; i <= 60; i++) {
      fragments += `\nfragment A${i} on Company { ...A${i - 1} ...B${i - 1} }`
      fragments += `\nfragment B${i} on Company { ...B${i - 1} ...A${i - 1} }`
    }
    const { body } = await stack.post(`{ company(${at}) { ...A60 ...B60 } }\n${fragments}`)
    expect(body.errors).toBeUndefined()
    expect(costOf(body)).toEqual({ estimated: 1, limit: 1000, upstreamCalls: 1, cacheHits: 0 })
  })

  it('estimates fragments that several fragments of the level above spread, without blowing up', async () => {
    // Levels alternate Company → shareholders → Relationship → company, and each of three
    // fragments of a level spreads all three of the next: 3^12 paths when expanded. Before, each
    // spread was collected again for every fragment above it, and a 1.7 KB query held the
    // server for 11 seconds.
    const levels = 12
    const name = (level: number, j: number) => `${'abc'[j]}${level}`
    const spreads = (level: number) => [0, 1, 2].map((j) => `...${name(level, j)}`).join(' ')
    let fragments = ''
    for (let level = 1; level <= levels; level++) {
      const onCompany = level % 2 === 1
      const inner =
        level < levels
          ? `${onCompany ? 'shareholders' : 'company'} { ${spreads(level + 1)} }`
          : onCompany
            ? 'number'
            : 'name'
      for (let j = 0; j < 3; j++) {
        fragments += `\nfragment ${name(level, j)} on ${onCompany ? 'Company' : 'Relationship'} { ${inner} }`
      }
    }
    const { body } = await stack.post(`{ company(${at}) { ${spreads(1)} } }${fragments}`)
    // Refused on its estimate (shareholders assumed 10 per company, 6 levels deep), not hung.
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['QUERY_TOO_COSTLY'])
    expect(costOf(body).upstreamCalls).toBe(0)
  })
})

/** Every field of the schema, reached by the shortest path from Query, with the arguments it needs. */
function everyFieldQuery(): { field: string; query: string }[] {
  const required: Record<string, string> = {
    'Query.company': `(${at})`,
    'Query.list': `(listId: ${big.id})`,
    'Query.node': `(id: "${companyId(full)}")`,
    'Query.nodes': `(ids: ["${globalId('List', big.id)}"])`,
  }
  const query = schema.getQueryType() as GraphQLObjectType
  const paths = new Map<string, string[]>([[query.name, []]])
  const queue: GraphQLObjectType[] = [query]
  const out: { field: string; query: string }[] = []
  for (let type = queue.shift(); type; type = queue.shift()) {
    const path = paths.get(type.name) ?? []
    for (const field of Object.values(type.getFields())) {
      const name = `${type.name}.${field.name}`
      const step = `${field.name}${required[name] ?? ''}`
      const target = getNamedType(field.type)
      const leaf = isCompositeType(target) ? `${step} { __typename }` : step
      const nested = [...path, leaf].reduceRight((inner, part) => `${part} { ${inner} }`)
      out.push({ field: name, query: `{ ${nested} }` })
      if (isObjectType(target) && !paths.has(target.name)) {
        paths.set(target.name, [...path, step])
        queue.push(target)
      }
    }
  }
  return out
}

describe('every field declares what it costs', () => {
  it.each(everyFieldQuery())(
    '$field: upstream calls made never exceed the estimate',
    async ({ query }) => {
      const { body } = await stack.post(query)
      const cost = costOf(body)
      expect(cost, JSON.stringify(body.errors)).toBeDefined()
      expect(demo.calls().length).toBe(cost.upstreamCalls)
      expect(cost.upstreamCalls).toBeLessThanOrEqual(cost.estimated)
    },
  )
})

describe('the budget while the operation runs', () => {
  it('draws every request sent from the budget, retries included, and sends none past it', async () => {
    // list + members + 5 statements = 7 estimated; each statement read fails twice with 503
    // and is retried: 2 + 5 × 3 = 17 requests wanted.
    demo.inject({ path: /\/financials$/, status: 503, times: 10 })
    const { body } = await twelve.post(
      `{ list(listId: ${big.id}) { companies(first: 5) { nodes { number financials(first: 1) { totalCount } } } } }`,
    )
    expect(costOf(body)).toEqual({ estimated: 7, limit: 12, upstreamCalls: 12, cacheHits: 0 })
    expect(demo.calls()).toHaveLength(12)
  })

  it('answers an unknown company the same whatever the budget that admits it: the read that says it is unknown is counted', async () => {
    const query = `{ company(country: BE, number: "0000000097") { lookalikes(first: 1) { totalCount } } }`
    const answers = []
    for (const limit of [1000, 2]) {
      demo.reset()
      // Its statements read, which says it is unknown, and its lookalikes read start together
      // (held until both are sent: the lookalikes read is dropped once the answer is known).
      const held = demo.hold(/\/financials$/)
      const answer = stack.replica({ maxOperationCost: limit }).post(query)
      await demo.waitForCalls((calls) => calls.length === 2)
      held.release()
      const { body } = await answer
      expect(
        demo
          .calls()
          .map((c) => c.path.split('/').at(-1))
          .sort(),
      ).toEqual(['financials', 'lookalikes'])
      expect(costOf(body)).toMatchObject({ estimated: 2, upstreamCalls: 2 })
      answers.push({ data: body.data, errors: body.errors })
    }
    expect(answers[1]).toEqual(answers[0])
    expect(answers[0]?.data).toEqual({ company: null })
    expect(answers[0]?.errors?.[0]).toMatchObject({
      path: ['company'],
      extensions: { code: 'NOT_FOUND' },
    })
    // One call short of what it may take: refused before any.
    demo.reset()
    const { body } = await stack.replica({ maxOperationCost: 1 }).post(query)
    expect(body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COSTLY')
    expect(demo.calls()).toEqual([])
  })

  it("answers a lookalike's name the same whatever the budget that admits it, when its own lookalikes read is refused (404): the read of its statements that names it then is counted", async () => {
    const query = `{ company(${at}) { lookalikes(first: 2) { nodes { name lookalikes(first: 1) { totalCount } } } } }`
    const others = new RegExp(`^(?!.*/${full.companyNumber}/).*/lookalikes$`)
    const ask = async (client: Client) => {
      demo.reset()
      demo.inject({ path: others, status: 404 })
      const { body } = await client.post(query)
      // Its statements and lookalikes, then each lookalike's lookalikes (refused) and
      // statements, which name it.
      expect(demo.calls()).toHaveLength(6)
      expect(costOf(body).upstreamCalls).toBeLessThanOrEqual(costOf(body).estimated)
      return body
    }
    const shown = ({ data, errors }: Awaited<ReturnType<typeof ask>>) => ({
      data,
      errors: errors?.map((e) => [e.path, e.extensions?.code]),
    })
    const roomy = await ask(stack)
    const tight = await ask(stack.replica({ maxOperationCost: costOf(roomy).estimated }))
    expect(shown(tight)).toEqual(shown(roomy))
    // Best first: the demo lists them so. Each named; its own lookalikes null with NOT_FOUND.
    const nodes = demo.data
      .lookalikesOf(full)
      .slice(0, 2)
      .map((l) => ({ name: l.company.name, lookalikes: null }))
    expect(roomy.data).toEqual({ company: { lookalikes: { nodes } } })
  })

  it('refuses the reads past the budget when a company has more shareholders than assumed', async () => {
    const held = data.widelyHeld
    const owners = data.relationshipsOf(held).parents.filter((p) => p.identifier)
    expect(owners.length).toBeGreaterThan(RELATIONSHIP_FAN_OUT)
    const { body } = await fifteen.post(
      `{ company(country: ${held.country}, number: "${held.companyNumber}") { shareholders { company { number financials(first: 1) { totalCount } } } } }`,
    )
    // Estimated with 10 shareholders: its statements, its relationships and 10 statements; run
    // with the real ones until the budget is spent.
    expect(costOf(body)).toEqual({ estimated: 12, limit: 15, upstreamCalls: 15, cacheHits: 0 })
    expect(demo.calls()).toHaveLength(15)
    const refused = (body.errors ?? []).filter((e) => e.extensions?.code === 'QUERY_TOO_COSTLY')
    expect(refused).toHaveLength(owners.length - 13)
    for (const error of refused) {
      expect(error.path).toEqual([
        'company',
        'shareholders',
        expect.any(Number),
        'company',
        'financials',
      ])
    }
    // Fields that needed no read past the budget are all there.
    const found = body.data?.company as { shareholders: unknown[] } | undefined
    expect(found?.shareholders).toHaveLength(data.relationshipsOf(held).parents.length)
  })

  it('neither reads nor estimates a skipped field merged with an included one', async () => {
    const { body } = await stack.post(
      `{ company(${at}) @skip(if: true) { ...F } company(${at}) { number } }
       fragment F on Company { lookalikes(first: 20) { nodes { financials(first: 1) { totalCount } shareholders { name } } } }`,
    )
    expect(body.errors).toBeUndefined()
    expect(body.data).toEqual({ company: { number: full.companyNumber } })
    // The company's existence check, its one read: no lookalike is read.
    expect(demo.calls().map((c) => c.path)).toEqual([
      `/v1/companies/${full.country}/${full.companyNumber}/financials`,
    ])
    expect(costOf(body)).toMatchObject({ estimated: 1, upstreamCalls: 1 })
  })

  it('sends nothing for an operation once its response is complete', async () => {
    // A list whose type the gateway knows has its companies read beside its details; when the
    // details say 404 the list is null, while its companies' read is still on its way: that
    // read is aborted, and its answer leads to no further read.
    await stack.post('{ lists(first: 50) { totalCount } }')
    demo.reset()
    const query = `{ list(listId: ${big.id}) { companies(first: 10) { nodes { financials(first: 1) { totalCount } } } } }`
    demo.inject({ path: `/v1/lists/${big.id}`, status: 404 })
    const members = demo.hold(`/v1/lists/${big.id}/companies`)
    const { body } = await stack.post(query)
    expect(body.data).toEqual({ list: null })
    expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['list'], 'NOT_FOUND']])
    const reported = costOf(body).upstreamCalls
    expect(reported).toBe(2)
    await demo.waitForCalls(
      (calls) =>
        calls.length === reported &&
        calls.filter((c) => c.path.endsWith('/companies')).every((c) => c.abandoned),
    )
    members.release()
    expect(demo.calls()).toHaveLength(reported)
  })
})

// Upstream reads that would wait a minute: only the client's leaving can end them in a test.
const patient = stack.replica({ upstreamTimeoutMs: 60_000 })

describe('a client that goes away', async () => {
  const address = `${(await serve(patient.gateway.yoga)).url}/graphql`

  it('takes its operation with it: reads in flight are aborted, none follow', async () => {
    const held = demo.hold(/\/lookalikes$/)
    const leaving = new AbortController()
    const response = fetch(address, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
      body: JSON.stringify({
        query: `{ list(listId: ${big.id}) { companies(first: 5) { nodes { lookalikes(first: 3) { nodes { financials(first: 1) { totalCount } } } } } } }`,
      }),
      signal: leaving.signal,
    }).catch(() => 'gone')
    const lookalikes = (calls: ReceivedCall[]) =>
      calls.filter((c) => c.path.endsWith('/lookalikes'))
    await demo.waitForCalls((calls) => lookalikes(calls).length === 5)
    leaving.abort()
    expect(await response).toBe('gone')
    // The gateway aborts the five reads it was waiting for…
    await demo.waitForCalls((calls) => lookalikes(calls).every((c) => c.abandoned))
    held.release()
    // …so no lookalike's statements are ever asked for.
    expect(demo.calls().filter((c) => c.path.endsWith('/financials'))).toEqual([])
  })

  it('many leaving at once, amid failing reads: no unhandled rejection, and the gateway still answers', async () => {
    const owned = claes
    const where = companyArgs(owned)
    const id = companyId(owned)
    const queries = [
      `{ company(${where}) { contacts(first: 1) { totalCount } shareholders { company { name financials(first: 1) { totalCount } } } } slow: lists(first: 1) { totalCount } }`,
      `{ nodes(ids: ["${id}", "${id}"]) { ... on Company { name financials(first: 2) { totalCount } } } lists(first: 1) { totalCount } }`,
      '{ lists(first: 3) { nodes { name companies(first: 2) { nodes { name lookalikes(first: 2) { nodes { name } } } } } } }',
    ]
    const unhandled: unknown[] = []
    const onUnhandled = (error: unknown) => unhandled.push(error)
    process.on('unhandledRejection', onUnhandled)
    demo.inject({ path: /contacts|\/v1\/lists$/, status: 500, delayMs: 40 })
    demo.inject({ path: /financials/, status: 400, delayMs: 80 })
    demo.inject({ path: /./, delayMs: 30 })
    const leaving = async (query: string, afterMs: number) => {
      const controller = new AbortController()
      setTimeout(() => controller.abort(), afterMs)
      await stack
        .request({ headers: demoToken, body: { query }, signal: controller.signal })
        .catch(() => undefined)
    }
    for (let round = 0; round < 6; round++) {
      await Promise.all(
        Array.from({ length: 60 }, (_, i) => leaving(queries[i % 3] ?? '', (i * 7) % 150)),
      )
    }
    // What the abandoned operations left behind settles once the upstream has answered or lost
    // every request (a rejection left unhandled after that still fails the run: vitest reports it).
    await demo.waitForCalls((calls) =>
      calls.every((c) => c.answeredSeq !== undefined || c.abandoned),
    )
    await sleep(100)
    process.off('unhandledRejection', onUnhandled)
    demo.reset()
    const after = await stack.post(`{ company(${where}) { name } }`)
    expect(after.body.data).toEqual({ company: { name: owned.name ?? null } })
    expect(unhandled).toEqual([])
  }, 60_000)
})
