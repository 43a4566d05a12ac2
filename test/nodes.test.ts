import { describe, expect, it } from 'vitest'
import { graphql } from './gql/index.js'
import { startStack } from './support/stack.js'

/** Relay global object identification: node(id) and nodes(ids) for List, Company and Contact. */

const stack = await startStack()
const { demo } = stack
const { data } = demo
const list = data.lists[2]
const company = data.companies.find((c) => data.contactsOf(c).length >= 8)
if (!list || !company) throw new Error('demo data lacks a list or a staffed company')
const globalId = (type: string, key: string) => Buffer.from(`${type}:${key}`).toString('base64')

const Node = graphql(`
  query Node($id: ID!) {
    node(id: $id) {
      id
      __typename
      ... on List { listId listName: name }
      ... on Company { number name }
      ... on Contact { contactId firstName lastName company { number } }
    }
  }
`)

const Nodes = graphql(`
  query Nodes($ids: [ID!]!) {
    nodes(ids: $ids) { id __typename ... on List { listId } ... on Company { number } }
  }
`)

const ContactIds = graphql(`
  query ContactIds($country: Country!, $number: String!) {
    company(country: $country, number: $number) {
      id
      contacts(first: 8) { nodes { id contactId firstName lastName } }
    }
  }
`)

describe('node(id)', () => {
  it('finds a list again by the ID it was given', async () => {
    const id = globalId('List', String(list.id))
    const result = await stack.execute(Node, { id })
    expect(result.data?.node).toEqual({
      id,
      __typename: 'List',
      listId: list.id,
      listName: list.name,
    })
  })

  it('resolves a company ID without an upstream call until a field needs one', async () => {
    const id = globalId('Company', `${company.country}:${company.companyNumber}`)
    const result = await stack.execute(Node, { id })
    expect(result.data?.node).toMatchObject({
      id,
      __typename: 'Company',
      number: company.companyNumber,
      name: company.name,
    })
    expect(demo.calls()).toHaveLength(1)
  })

  it('finds a contact again, even after its contactId changed upstream', async () => {
    const listed = await stack.execute(ContactIds, {
      country: company.country,
      number: company.companyNumber,
    })
    const contacts = listed.data?.company?.contacts.nodes ?? []
    const target = contacts[5]
    if (!target) throw new Error('no contact')
    // Every contact's ID is distinct and is not the bare contactId.
    expect(new Set(contacts.map((c) => c.id)).size).toBe(contacts.length)

    demo.reset()
    const found = await stack.execute(Node, { id: target.id })
    expect(found.data?.node).toEqual({
      id: target.id,
      __typename: 'Contact',
      contactId: target.contactId,
      firstName: target.firstName,
      lastName: target.lastName,
      company: { number: company.companyNumber },
    })
    expect(demo.calls().map((c) => c.query)).toEqual([
      { q: target.lastName, limit: '500', offset: '0' },
    ])

    demo.inject({
      path: `/v1/companies/${company.country}/${company.companyNumber}/contacts`,
      transform: (json) => {
        const body = json as { data: { identifier: { contactId: number } }[] }
        for (const item of body.data) item.identifier.contactId += 1_000_000
        return body
      },
    })
    const moved = await stack.execute(Node, { id: target.id })
    expect(moved.data?.node).toMatchObject({
      __typename: 'Contact',
      contactId: target.contactId + 1_000_000,
      firstName: target.firstName,
      lastName: target.lastName,
    })
  })

  it('is null with NOT_FOUND for a well-formed ID that names nothing', async () => {
    const result = await stack.execute(Node, { id: globalId('List', '4242') })
    expect(result.data).toEqual({ node: null })
    expect(result.errors?.[0]?.extensions?.code).toBe('NOT_FOUND')
  })

  it.each([
    ['garbage', 'not base64 of type:key'],
    [globalId('Invoice', '12'), 'a type that is no Node'],
    [globalId('List', 'abc'), 'a List ID that is not a number'],
    [globalId('Company', 'BE:0123456789'), 'a company number failing its check'],
    [globalId('Company', 'XX:123'), 'an unknown country'],
    [globalId('Contact', '{"not":"a tuple"}'), 'a Contact ID that is no natural key'],
  ])('refuses %s (%s) with BAD_USER_INPUT and no upstream call', async (id) => {
    const result = await stack.execute(Node, { id })
    expect(result.data).toEqual({ node: null })
    expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT')
    expect(demo.calls()).toEqual([])
  })
})

describe('nodes(ids)', () => {
  it('resolves a mix of types in order, in one batch, each list once', async () => {
    const lists = data.lists.slice(0, 3)
    const ids = [
      ...lists.map((l) => globalId('List', String(l.id))),
      globalId('Company', `${company.country}:${company.companyNumber}`),
      globalId('List', String(lists[0]?.id)),
    ]
    demo.latencyMs = 40
    const started = performance.now()
    const result = await stack.execute(Nodes, { ids })
    const elapsed = performance.now() - started
    expect(result.data?.nodes).toEqual([
      ...lists.map((l, i) => ({ id: ids[i], __typename: 'List', listId: l.id })),
      { id: ids[3], __typename: 'Company', number: company.companyNumber },
      { id: ids[4], __typename: 'List', listId: lists[0]?.id },
    ])
    expect(
      demo
        .calls()
        .map((c) => c.path)
        .sort(),
    ).toEqual(lists.map((l) => `/v1/lists/${l.id}`).sort())
    // The three reads went out together, not one after another.
    expect(elapsed).toBeLessThan(3 * 40)
  })

  it('fails only the entries that fail', async () => {
    const good = globalId('List', String(list.id))
    const result = await stack.execute(Nodes, { ids: [good, globalId('List', '4242')] })
    expect(result.data?.nodes).toEqual([{ id: good, __typename: 'List', listId: list.id }, null])
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['nodes', 1], 'NOT_FOUND'],
    ])
  })
})
