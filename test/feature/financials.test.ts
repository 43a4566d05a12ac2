import { describe, expect, it } from 'vitest'
import type { Financial } from '../../src/upstream/resources/financials.js'
import type { OrderedStatementsQueryVariables } from '../gql/graphql.js'
import { graphql } from '../gql/index.js'
import { claes, companyArgs, companyVars } from '../support/fixtures.js'
import { multipartParts, reassemble } from '../support/incremental.js'
import { costOf, demoToken, startStack } from '../support/stack.js'

/**
 * Company.financials in a defined order, newest period first whatever order the upstream keeps
 * (the REST document states none): the gateway reads a company's statements whole and pages
 * them, so one upstream call serves every page, both orders and the company's name.
 */

const stack = await startStack()
const { demo } = stack
const company = claes
const statementsPath = `/v1/companies/${company.country}/${company.companyNumber}/financials`
const wholeRead = { limit: '500', offset: '0' }
const statements = demo.data.financialsOf(company)
/** A statement to give other dates to. */
const model = statements[0]
const newestFirst = statements.map((s) => s.endDate).sort((a, b) => b.localeCompare(a))

const OrderedStatements = graphql(`
  query OrderedStatements($country: Country!, $number: String!, $orderBy: FinancialOrder, $first: Int, $after: String, $last: Int, $before: String) {
    company(country: $country, number: $number) {
      financials(orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {
        totalCount
        edges { cursor node { startDate endDate dateReceived } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }
  }
`)

const page = async (variables: Omit<OrderedStatementsQueryVariables, 'country' | 'number'>) => {
  const result = await stack.execute(OrderedStatements, { ...companyVars(company), ...variables })
  expect(result.errors).toBeUndefined()
  const financials = result.data?.company?.financials
  if (!financials) throw new Error('no financials')
  return financials
}
const endDates = (f: { edges: { node: { endDate: string } }[] }) =>
  f.edges.map((e) => e.node.endDate)

/** The upstream sends the statements in another order: item j of its answer is item 3j mod n. */
function shuffleUpstream() {
  demo.inject({
    path: statementsPath,
    transform: (json) => {
      const body = json as { data: Financial[] }
      const n = body.data.length
      return { ...body, data: body.data.map((_, j) => body.data[(3 * j) % n]) }
    },
  })
}

describe('Company.financials order', () => {
  it('comes newest period first whatever order the upstream sends, from one read of them all', async () => {
    shuffleUpstream()
    const f = await page({ first: 10 })
    expect(f.totalCount).toBe(10)
    expect(endDates(f)).toEqual(newestFirst)
    expect(demo.calls().map((c) => [c.path, c.query])).toEqual([[statementsPath, wholeRead]])
    // The upstream's answer really was in another order.
    const sent = statements.map((_, j) => statements[(3 * j) % 10]?.endDate)
    expect(sent).not.toEqual(newestFirst)
    demo.reset()
    shuffleUpstream()
    expect(endDates(await page({ first: 1 }))).toEqual(newestFirst.slice(0, 1))
  })

  it('comes oldest first with orderBy: PERIOD_END_ASC, exactly the reverse', async () => {
    shuffleUpstream()
    const asc = await page({ orderBy: 'PERIOD_END_ASC', first: 10 })
    expect(endDates(asc)).toEqual(newestFirst.toReversed())
    expect(asc.totalCount).toBe(10)
    expect(endDates(await page({ orderBy: 'PERIOD_END_ASC', last: 3 }))).toEqual(
      newestFirst.slice(0, 3).toReversed(),
    )
  })

  it('breaks ties by the latest startDate, then the latest dateReceived', async () => {
    const period = (startDate: string, endDate: string, dateReceived: string | null) => ({
      startDate,
      endDate,
      dateReceived,
    })
    const sent = [
      period('2023-01-01', '2023-12-31', '2024-05-01'),
      period('2024-01-01', '2024-12-31', '2025-03-01'),
      period('2024-07-01', '2024-12-31', null),
      period('2024-07-01', '2024-12-31', '2025-04-01'),
      period('2024-07-01', '2024-12-31', '2025-02-01'),
    ]
    demo.inject({
      path: statementsPath,
      transform: (json) => {
        const body = json as { pagination: object }
        const data = sent.map((dates) => ({ ...model, ...dates }))
        return { ...body, data, pagination: { ...body.pagination, total: data.length } }
      },
    })
    const desc = await page({ first: 5 })
    const expected = [sent[3], sent[4], sent[2], sent[1], sent[0]]
    expect(desc.edges.map((e) => e.node)).toEqual(expected)
    const asc = await page({ orderBy: 'PERIOD_END_ASC', first: 5 })
    expect(asc.edges.map((e) => e.node)).toEqual(expected.toReversed())
  })
})

describe('Company.financials pages', () => {
  it('page forward and backward with cursors, in either order', async () => {
    shuffleUpstream()
    for (const [orderBy, order] of [
      ['PERIOD_END_DESC', newestFirst],
      ['PERIOD_END_ASC', newestFirst.toReversed()],
    ] as const) {
      const first = await page({ orderBy, first: 4 })
      const second = await page({ orderBy, first: 4, after: first.pageInfo.endCursor })
      expect(endDates(second)).toEqual(order.slice(4, 8))
      expect(second.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true })
      const back = await page({ orderBy, last: 4, before: second.pageInfo.startCursor })
      expect(back.edges).toEqual(first.edges)
      expect(back.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false })
      const final = await page({ orderBy, last: 2 })
      expect(endDates(final)).toEqual(order.slice(8))
      expect(final.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true })
    }
  })

  it('a cursor of one order is refused by the other; no orderBy and null are the default', async () => {
    const desc = await page({ first: 2 })
    const cursor = desc.pageInfo.endCursor
    const asc = await stack.execute(OrderedStatements, {
      ...companyVars(company),
      orderBy: 'PERIOD_END_ASC',
      after: cursor,
    })
    expect(asc.data?.company?.financials).toBeNull()
    expect(asc.errors?.map((e) => e.extensions)).toEqual([
      { code: 'BAD_USER_INPUT', retryable: false, argument: 'after' },
    ])
    for (const orderBy of [null, 'PERIOD_END_DESC'] as const) {
      expect(endDates(await page({ orderBy, first: 2, after: cursor }))).toEqual(
        newestFirst.slice(2, 4),
      )
    }
  })

  it('several pages, both orders and the name of one company in one operation: one upstream call, as estimated', async () => {
    const cursor = (await page({ first: 3 })).pageInfo.endCursor
    demo.reset()
    shuffleUpstream()
    const { body } = await stack.post(
      `query($after: String) { company(${companyArgs(company)}) {
        name
        top: financials(first: 3) { totalCount nodes { endDate } }
        next: financials(first: 3, after: $after) { totalCount nodes { endDate } }
        tail: financials(last: 2) { totalCount nodes { endDate } }
        oldest: financials(orderBy: PERIOD_END_ASC, first: 1) { totalCount nodes { endDate } }
        none: financials(first: 0) { totalCount }
      } }`,
      { after: cursor },
    )
    expect(body.errors).toBeUndefined()
    const nodes = (from: number, to?: number) =>
      newestFirst.slice(from, to).map((endDate) => ({ endDate }))
    expect(body.data).toEqual({
      company: {
        name: company.name,
        top: { totalCount: 10, nodes: nodes(0, 3) },
        next: { totalCount: 10, nodes: nodes(3, 6) },
        tail: { totalCount: 10, nodes: nodes(8) },
        oldest: { totalCount: 10, nodes: nodes(9) },
        none: { totalCount: 10 },
      },
    })
    expect(demo.calls().map((c) => [c.path, c.query])).toEqual([[statementsPath, wholeRead]])
    expect(costOf(body)).toMatchObject({ estimated: 1, upstreamCalls: 1 })
  })

  it('the name asked beside deferred financials: one upstream call for both parts', async () => {
    const response = await stack.request({
      headers: { accept: 'multipart/mixed', ...demoToken },
      body: {
        query: `{ company(${companyArgs(company)}) { name ... @defer { financials(first: 2) { totalCount nodes { endDate } } } } }`,
      },
    })
    const parts = multipartParts(response)
    expect(reassemble(parts)).toEqual({
      errors: [],
      data: {
        company: {
          name: company.name,
          financials: {
            totalCount: 10,
            nodes: newestFirst.slice(0, 2).map((endDate) => ({ endDate })),
          },
        },
      },
    })
    expect(demo.calls().map((c) => [c.path, c.query])).toEqual([[statementsPath, wholeRead]])
    expect(parts.at(-1)?.extensions?.cost).toMatchObject({ estimated: 1, upstreamCalls: 1 })
  })
})

describe('the read that names a company is the read of its statements', () => {
  const alike = demo.data.lookalikesOf(company)[0]?.company
  if (!alike) throw new Error('no lookalike')
  const alikeStatements = `/v1/companies/${alike.country}/${alike.companyNumber}/financials`

  it('in one operation: a name asked first and financials reached later cost one call', async () => {
    const { body } = await stack.post(`{
      alike: company(${companyArgs(alike)}) { name }
      company(${companyArgs(company)}) {
        lookalikes(first: 1) { nodes { number financials(first: 2) { totalCount } } }
      }
    }`)
    expect(body.errors).toBeUndefined()
    expect(body.data).toEqual({
      alike: { name: alike.name },
      company: {
        lookalikes: {
          nodes: [
            {
              number: alike.companyNumber,
              financials: { totalCount: demo.data.financialsOf(alike).length },
            },
          ],
        },
      },
    })
    // The alike's statements once; the company's statements (whether it exists) and lookalikes.
    expect(demo.calls().map((c) => [c.path, c.query])).toEqual(
      expect.arrayContaining([
        [alikeStatements, wholeRead],
        [`/v1/companies/${company.country}/${company.companyNumber}/financials`, wholeRead],
        [`/v1/companies/${company.country}/${company.companyNumber}/lookalikes`, {}],
      ]),
    )
    expect(demo.calls()).toHaveLength(3)
  })

  it('across operations, with the cache on: financials after a name cost no call', async () => {
    const cached = stack.replica({ cacheTtlSeconds: 300 })
    const named = await cached.post(`{ company(${companyArgs(alike)}) { name } }`)
    expect(costOf(named.body)).toMatchObject({ upstreamCalls: 1 })
    const { body } = await cached.post(
      `{ company(${companyArgs(alike)}) { financials(first: 2) { totalCount } } }`,
    )
    expect(body.errors).toBeUndefined()
    expect(costOf(body)).toMatchObject({ upstreamCalls: 0, cacheHits: 1 })
    expect(demo.calls().map((c) => [c.path, c.query])).toEqual([[alikeStatements, wholeRead]])
  })
})

describe('a company with more statements than the upstream gives at once (500)', () => {
  const TOTAL = 620
  /** Monthly periods, the newest (December 2024) first. */
  const month = (k: number) => {
    const year = 2024 - Math.floor(k / 12)
    const m = String(12 - (k % 12)).padStart(2, '0')
    return { startDate: `${year}-${m}-01`, endDate: `${year}-${m}-28` }
  }
  /** The upstream's order: the newest in its second page (at 550), the oldest in its first. */
  const upstreamOrder = Array.from({ length: TOTAL }, (_, j) => month((7 * j + 490) % TOTAL))

  it('reads the rest until the total, then orders them all', async () => {
    demo.inject({
      path: statementsPath,
      transform: (json) => {
        const body = json as { pagination: { limit: number; offset: number } }
        const { limit, offset } = body.pagination
        const data = upstreamOrder.slice(offset, offset + limit).map((d) => ({ ...model, ...d }))
        return { ...body, data, pagination: { ...body.pagination, total: TOTAL } }
      },
    })
    const { body } = await stack.post(
      `{ company(${companyArgs(company)}) {
        newest: financials(first: 2) { totalCount nodes { endDate } }
        oldest: financials(last: 1) { nodes { endDate } }
      } }`,
    )
    expect(body.errors).toBeUndefined()
    expect(body.data?.company).toEqual({
      newest: { totalCount: TOTAL, nodes: [{ endDate: '2024-12-28' }, { endDate: '2024-11-28' }] },
      oldest: { nodes: [{ endDate: month(TOTAL - 1).endDate }] },
    })
    // The newest is in the upstream's second page: only reading them all finds it.
    expect(upstreamOrder.findIndex((d) => d.endDate === '2024-12-28')).toBe(550)
    expect(demo.calls().map((c) => c.query)).toEqual([wholeRead, { limit: '500', offset: '500' }])
    expect(costOf(body)).toMatchObject({ upstreamCalls: 2 })
  })
})
