import { describe, expect, it } from 'vitest'
import { GRAPHIQL_TABS } from '../../src/http/graphiql.js'
import { graphql } from '../gql/index.js'
import { bigList, globalId, smartList } from '../support/fixtures.js'
import { startStack } from '../support/stack.js'

/** Query.lists, Query.list and a list's companies and contacts, end to end. */

const stack = await startStack()
const { demo } = stack
const { lists } = demo.data
const big = bigList
const smart = smartList

const Lists = graphql(`
  query Lists($kind: ListKind, $first: Int, $after: String, $last: Int, $before: String) {
    lists(kind: $kind, first: $first, after: $after, last: $last, before: $before) {
      totalCount
      edges { cursor node { id listId name type } }
      nodes { listId }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`)

const OneList = graphql(`
  query OneList($listId: Int!) {
    list(listId: $listId) {
      id listId name type columns shared notificationsEnabled companyCount newResults
      createdAt updatedAt createdBy
    }
  }
`)

const Members = graphql(`
  query Members($listId: Int!, $view: SmartListView, $first: Int, $after: String, $last: Int, $before: String) {
    list(listId: $listId) {
      companies(view: $view, first: $first, after: $after, last: $last, before: $before) {
        totalCount
        edges { cursor matchedSince node { id country number name place } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }
  }
`)

const ListContacts = graphql(`
  query ListContacts($listId: Int!, $first: Int) {
    list(listId: $listId) {
      contacts(first: $first) {
        totalCount
        nodes { id contactId firstName lastName jobTitle company { number name place } }
      }
    }
  }
`)

const key = (c: { country: string; companyNumber?: string; number?: string }) =>
  `${c.country}:${c.companyNumber ?? c.number}`

describe('Query.lists', () => {
  it('returns both kinds by default (OVERVIEW), with every field the contract names', async () => {
    const result = await stack.execute(Lists, { first: 50 })
    expect(result.data?.lists?.totalCount).toBe(lists.length)
    expect(result.data?.lists?.nodes.map((n) => n.listId)).toEqual(lists.map((l) => l.id))
    expect(demo.calls().map((c) => c.query)).toEqual([
      { type: 'OVERVIEW', limit: '50', offset: '0' },
    ])
  })

  it('takes kind: null as the default, as Relay sends an optional variable it does not set', async () => {
    const first = await stack.post('{ lists(first: 2) { pageInfo { endCursor } } }')
    const page = first.body.data?.lists as { pageInfo: { endCursor: string } } | undefined
    const after = page?.pageInfo.endCursor
    expect(after).toEqual(expect.any(String))
    const next = await stack.post(
      'query Next($kind: ListKind, $after: String) { lists(kind: $kind, first: 2, after: $after) { nodes { listId } } }',
      { kind: null, after },
    )
    expect(next.body.errors).toBeUndefined()
    expect(next.body.data).toEqual({
      lists: { nodes: lists.slice(2, 4).map((l) => ({ listId: l.id })) },
    })
  })

  it.each(['STATIC', 'SMART'] as const)('filters on kind %s', async (kind) => {
    const result = await stack.execute(Lists, { kind, first: 50 })
    const expected = lists.filter((l) => l.type === kind).map((l) => l.id)
    expect(result.data?.lists?.edges.map((e) => e.node.listId)).toEqual(expected)
    expect(result.data?.lists?.edges.every((e) => e.node.type === kind)).toBe(true)
  })

  it('pages forward and backward with the same cursors', async () => {
    const first = await stack.execute(Lists, { first: 3 })
    const second = await stack.execute(Lists, {
      first: 3,
      after: first.data?.lists?.pageInfo.endCursor,
    })
    expect(second.data?.lists?.nodes.map((n) => n.listId)).toEqual(
      lists.slice(3, 6).map((l) => l.id),
    )
    const back = await stack.execute(Lists, {
      last: 3,
      before: second.data?.lists?.pageInfo.startCursor,
    })
    expect(back.data?.lists?.edges).toEqual(first.data?.lists?.edges)
    const tail = await stack.execute(Lists, { last: 2 })
    expect(tail.data?.lists?.nodes.map((n) => n.listId)).toEqual(lists.slice(-2).map((l) => l.id))
    expect(tail.data?.lists?.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true })
  })

  it('answers under aliases named after members of Object.prototype', async () => {
    const [first] = lists
    const { body } = await stack.post(
      '{ __proto__: lists(first: 1) { constructor: totalCount nodes { __proto__: name toString: listId } } hasOwnProperty: __typename }',
    )
    expect(body.errors).toBeUndefined()
    // Computed keys: `__proto__:` in an object literal would set its prototype instead.
    expect(body.data).toEqual({
      ['__proto__']: {
        constructor: lists.length,
        nodes: [{ ['__proto__']: first?.name, toString: first?.id }],
      },
      hasOwnProperty: 'Query',
    })
  })
})

describe('Query.list', () => {
  it('renames the REST fields as the contract does', async () => {
    const result = await stack.execute(OneList, { listId: smart.id })
    expect(result.data?.list).toEqual({
      id: globalId('List', smart.id),
      listId: smart.id,
      name: smart.name,
      type: 'SMART',
      columns: smart.columns,
      shared: smart.shared,
      notificationsEnabled: smart.notifications.enabled,
      companyCount: smart.amountOfCompanies,
      newResults: smart.newResults,
      createdAt: smart.createdAt,
      updatedAt: smart.updatedAt,
      createdBy: smart.createdBy,
    })
    const stat = await stack.execute(OneList, { listId: big.id })
    expect(stat.data?.list?.newResults).toBeNull()
  })

  it('refuses a negative listId before any upstream call', async () => {
    const result = await stack.execute(OneList, { listId: -1 })
    expect(result.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      retryable: false,
      argument: 'listId',
    })
    expect(demo.calls()).toEqual([])
  })

  it('a root field’s refused argument refuses the operation before anything is read', async () => {
    const { body } = await stack.post(
      `{ list(listId: ${big.id}) { name } lists(first: -1) { totalCount } }`,
    )
    expect(body.data).toBeUndefined()
    expect(body.errors?.map((e) => [e.extensions?.argument, e.extensions?.code])).toEqual([
      ['first', 'BAD_USER_INPUT'],
    ])
    expect(demo.calls()).toEqual([])
  })

  it('is null with NOT_FOUND for a list that does not exist', async () => {
    const result = await stack.execute(OneList, { listId: 4242 })
    expect(result.data).toEqual({ list: null })
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['list'], 'NOT_FOUND'],
    ])
  })
})

describe('List.companies', () => {
  it('returns members 499..502 of a 1,234-member list across the upstream page boundary', async () => {
    const page1 = await stack.execute(Members, { listId: big.id, first: 499 })
    const result = await stack.execute(Members, {
      listId: big.id,
      first: 4,
      after: page1.data?.list?.companies?.pageInfo.endCursor,
    })
    const edges = result.data?.list?.companies?.edges ?? []
    expect(edges.map((e) => key(e.node))).toEqual(
      big.members.slice(499, 503).map((m) => key(m.company)),
    )
    expect(edges.map((e) => e.matchedSince)).toEqual(
      big.members.slice(499, 503).map((m) => m.matchedSince),
    )
    expect(edges[0]?.node).toMatchObject({
      name: big.members[499]?.company.name,
      place: big.members[499]?.company.place,
    })
  })

  it('visits every member exactly once paging 500 at a time, one upstream call per page', async () => {
    const seen: string[] = []
    let after: string | null | undefined
    for (;;) {
      const result = await stack.execute(Members, { listId: big.id, first: 500, after })
      const companies = result.data?.list?.companies
      expect(companies?.totalCount).toBe(1234)
      seen.push(...(companies?.edges.map((e) => key(e.node)) ?? []))
      if (!companies?.pageInfo.hasNextPage) break
      after = companies.pageInfo.endCursor
    }
    expect(seen).toEqual(big.members.map((m) => key(m.company)))
    const memberCalls = demo.calls().filter((c) => c.path.endsWith('/companies'))
    expect(memberCalls.map((c) => c.query.offset)).toEqual(['0', '500', '1000'])
  })

  it('costs no call for the names and places the member list carries', async () => {
    await stack.execute(Members, { listId: big.id, first: 30 })
    // In either order: with the list's type known, both are read at once.
    expect(
      demo
        .calls()
        .map((c) => c.path)
        .sort(),
    ).toEqual([`/v1/lists/${big.id}`, `/v1/lists/${big.id}/companies`])
  })

  it('sends the SMART view upstream (ALL by default)', async () => {
    const all = await stack.execute(Members, { listId: smart.id, first: 1 })
    expect(all.data?.list?.companies?.totalCount).toBe(smart.amountOfCompanies)
    const fresh = await stack.execute(Members, { listId: smart.id, view: 'NEW', first: 5 })
    expect(fresh.data?.list?.companies?.totalCount).toBe(smart.newResults)
    const newOnes = smart.members.filter((m) => m.status === 'NEW').slice(0, 5)
    expect(fresh.data?.list?.companies?.edges.map((e) => key(e.node))).toEqual(
      newOnes.map((m) => key(m.company)),
    )
    expect(
      demo
        .calls()
        .filter((c) => c.path.endsWith('/companies'))
        .map((c) => c.query.type),
    ).toEqual(['ALL', 'NEW'])
  })

  it('ignores the view for a STATIC list and sends none', async () => {
    const result = await stack.execute(Members, { listId: big.id, view: 'ARCHIVED', first: 1 })
    expect(result.data?.list?.companies?.totalCount).toBe(big.amountOfCompanies)
    const call = demo.calls().find((c) => c.path.endsWith('/companies'))
    expect(call?.query).toEqual({ limit: '1', offset: '0' })
  })

  it('pages backward from the end with last alone', async () => {
    const result = await stack.execute(Members, { listId: big.id, last: 3 })
    expect(result.data?.list?.companies?.edges.map((e) => key(e.node))).toEqual(
      big.members.slice(-3).map((m) => key(m.company)),
    )
  })
})

describe('List.contacts', () => {
  it('returns the contacts with their company, whose name costs no call; their IDs take their companies’ contacts', async () => {
    const result = await stack.execute(ListContacts, { listId: big.id, first: 5 })
    const contacts = result.data?.list?.contacts
    expect(contacts?.totalCount).toBe(big.contacts.length)
    expect(
      contacts?.nodes.map((n) => [
        n.contactId,
        n.firstName,
        n.lastName,
        n.company.number,
        n.company.name,
      ]),
    ).toEqual(
      big.contacts
        .slice(0, 5)
        .map((c) => [
          c.contact.contactId,
          c.contact.firstName,
          c.contact.lastName,
          c.company.companyNumber,
          c.company.name,
        ]),
    )
    // The list's details and contacts (at once: its type is known), then each company's contacts,
    // read whole, which rank namesakes for the IDs.
    const companies = new Set(big.contacts.slice(0, 5).map((c) => key(c.company)))
    expect(
      demo
        .calls()
        .map((c) => c.path)
        .sort(),
    ).toEqual(
      [
        `/v1/lists/${big.id}`,
        `/v1/lists/${big.id}/contacts`,
        ...[...companies].map((k) => `/v1/companies/${k.replace(':', '/')}/contacts`),
      ].sort(),
    )
  })
})

describe('arguments refused before any upstream call', () => {
  it.each([
    [{ first: 501 }, 'first'],
    [{ last: -1 }, 'last'],
    [{ after: 'not-a-cursor' }, 'after'],
    [{ first: 2, last: 2 }, 'last'],
  ])('%o', async (args, argument) => {
    const result = await stack.execute(Lists, args)
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument })
    expect(demo.calls()).toEqual([])
  })

  it('a cursor of another connection', async () => {
    const page = await stack.execute(Lists, { first: 1 })
    demo.reset()
    const result = await stack.execute(Members, {
      listId: big.id,
      after: page.data?.lists?.pageInfo.endCursor,
    })
    expect(result.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'after',
    })
    expect(demo.calls().map((c) => c.path)).toEqual([`/v1/lists/${big.id}`])
  })
})

describe('a cursor pages only the connection it came from', () => {
  const membersAfter = async (listId: number, view?: 'ALL' | 'NEW' | 'SAVED') => {
    const page = await stack.execute(Members, { listId, view, first: 2 })
    const cursor = page.data?.list?.companies?.pageInfo.endCursor
    if (!cursor) throw new Error('no cursor')
    demo.reset()
    return cursor
  }
  const refusedWithoutCall = async (
    result: { errors?: { extensions?: object }[] },
    path: string,
  ) => {
    expect(result.errors?.map((e) => e.extensions)).toEqual([
      { code: 'BAD_USER_INPUT', retryable: false, argument: 'after' },
    ])
    // The list itself is read (to know its type); its members are not.
    expect(demo.calls().map((c) => c.path)).toEqual([path])
  }

  it('a member cursor of one list is refused on another list', async () => {
    const after = await membersAfter(big.id)
    const other = lists.find((l) => l.type === 'STATIC' && l !== big && l.amountOfCompanies > 10)
    if (!other) throw new Error('no other list')
    await refusedWithoutCall(
      await stack.execute(Members, { listId: other.id, after }),
      `/v1/lists/${other.id}`,
    )
  })

  it('a member cursor of one SMART view is refused on another view of the same list', async () => {
    const after = await membersAfter(smart.id, 'NEW')
    await refusedWithoutCall(
      await stack.execute(Members, { listId: smart.id, view: 'SAVED', after }),
      `/v1/lists/${smart.id}`,
    )
    // The same view pages on.
    demo.reset()
    const next = await stack.execute(Members, { listId: smart.id, view: 'NEW', after, first: 2 })
    expect(next.errors).toBeUndefined()
  })

  it('a list cursor of one kind is refused for another kind', async () => {
    const page = await stack.execute(Lists, { kind: 'STATIC', first: 1 })
    demo.reset()
    const result = await stack.execute(Lists, {
      kind: 'SMART',
      after: page.data?.lists?.pageInfo.endCursor,
    })
    expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT'])
    expect(demo.calls()).toEqual([])
  })

  it('lists(last: 0) makes one call, for the total', async () => {
    const result = await stack.execute(Lists, { last: 0 })
    expect(result.data?.lists).toMatchObject({ totalCount: lists.length, nodes: [] })
    expect(demo.calls()).toHaveLength(1)
  })
})

describe('GraphiQL', () => {
  const run = async (tab: (typeof GRAPHIQL_TABS)[number], variables?: Record<string, unknown>) => {
    const { body } = await stack.post(tab.query, variables ?? JSON.parse(tab.variables ?? '{}'))
    return body as { data?: Record<string, unknown>; errors?: unknown[] }
  }
  const [traversal, paging, node] = GRAPHIQL_TABS
  if (!traversal || !paging || !node) throw new Error('three tabs expected')

  it('opens with tabs that name no list or company of their own, so they run on any upstream', () => {
    for (const tab of GRAPHIQL_TABS) {
      const code = tab.query.replace(/#.*$/gm, '')
      expect(code).not.toMatch(/\d{3,}|listId:|number:/)
    }
  })

  it('the traversal, backward paging and node tabs run on the demo data', async () => {
    const walk = await run(traversal)
    expect(walk.errors).toBeUndefined()
    type Walk = { lists: { nodes: { companies: { edges: { node: { id: string } }[] } }[] } }
    const [first] = (walk.data as Walk | undefined)?.lists.nodes ?? []
    expect(first?.companies.edges).toHaveLength(5)

    const last = await run(paging)
    expect(last.errors).toBeUndefined()
    expect(last.data?.lists).toMatchObject({
      totalCount: lists.length,
      pageInfo: { hasPreviousPage: true },
    })

    const found = await run(node, { id: first?.companies.edges[0]?.node.id })
    expect(found.errors).toBeUndefined()
    expect(found.data?.node).toMatchObject({
      __typename: 'Company',
      id: first?.companies.edges[0]?.node.id,
    })
  })
})
