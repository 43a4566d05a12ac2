import { describe, expect, it, vi } from 'vitest'
import { graphql } from '../gql/index.js'
import { companyId, globalId, michiels } from '../support/fixtures.js'
import { startStack } from '../support/stack.js'

/** Relay global object identification: node(id) and nodes(ids) for List, Company and Contact. */

// Counts the keyed hashes the gateway computes (Contact IDs), to show what is hashed once.
const hashes = vi.hoisted(() => ({ count: 0 }))
vi.mock('../../src/domain/keyed-hash.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/domain/keyed-hash.js')>()
  return {
    keyedHash: (...args: Parameters<typeof actual.keyedHash>) => {
      hashes.count++
      return actual.keyedHash(...args)
    },
  }
})

const stack = await startStack()
/** The cache of reads on, as in production: what it serves is frozen and shared. */
const cached = await startStack({ cacheTtlSeconds: 300 })
const { demo } = stack
const { data } = demo
const list = data.lists[2]
if (!list) throw new Error('demo data lacks a third list')
const company = michiels
const contactsPath = `/v1/companies/${company.country}/${company.companyNumber}/contacts`

const Node = graphql(`
  query Node($id: ID!) {
    node(id: $id) {
      id
      __typename
      ... on List { listId listName: name }
      ... on Company { number name }
      ... on Contact { contactId firstName lastName jobTitle company { number } }
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
      contacts(first: 8) { nodes { id contactId firstName lastName jobTitle } }
    }
  }
`)

async function contactsOfCompany() {
  const listed = await stack.execute(ContactIds, {
    country: company?.country ?? 'BE',
    number: company?.companyNumber ?? '',
  })
  return listed.data?.company?.contacts?.nodes ?? []
}

describe('global IDs', () => {
  it('are URL-safe base64 without padding, and a Contact ID holds no name', async () => {
    const contacts = await contactsOfCompany()
    expect(contacts.length).toBe(8)
    for (const contact of contacts) {
      expect(contact.id).toMatch(/^[A-Za-z0-9_-]+$/)
      const decoded = Buffer.from(contact.id, 'base64url').toString()
      expect(decoded).toMatch(/^Contact:/)
      for (const name of [contact.firstName, contact.lastName]) {
        if (name) expect(decoded.toLowerCase()).not.toContain(name.toLowerCase())
      }
      expect(decoded).not.toContain(String(contact.contactId))
    }
    expect(new Set(contacts.map((c) => c.id)).size).toBe(contacts.length)
  })
})

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
    expect(demo.calls().map((c) => c.path)).toEqual([`/v1/lists/${list.id}`])
  })

  it('finds a company by its ID with one upstream read, which also gives its name', async () => {
    const id = companyId(company)
    const result = await stack.execute(Node, { id })
    expect(result.data?.node).toEqual({
      id,
      __typename: 'Company',
      number: company.companyNumber,
      name: company.name,
    })
    expect(demo.calls()).toHaveLength(1)
  })

  it('is null with NOT_FOUND for a well-formed ID of a company the upstream does not know', async () => {
    const result = await stack.execute(Node, { id: globalId('Company', 'NL:00000001') })
    expect(result.data).toEqual({ node: null })
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['node'], 'NOT_FOUND'],
    ])
    expect(demo.calls()).toHaveLength(1)
  })

  it('finds a contact again with one upstream read, with the same ID after its contactId changed', async () => {
    const contacts = await contactsOfCompany()
    const target = contacts[5]
    if (!target) throw new Error('no contact')

    demo.reset()
    const found = await stack.execute(Node, { id: target.id })
    expect(found.data?.node).toEqual({
      id: target.id,
      __typename: 'Contact',
      contactId: target.contactId,
      firstName: target.firstName,
      lastName: target.lastName,
      jobTitle: target.jobTitle,
      company: { number: company.companyNumber },
    })
    expect(demo.calls().map((c) => [c.path, c.query])).toEqual([
      [contactsPath, { limit: '500', offset: '0' }],
    ])

    // The upstream renumbers its contacts: IDs stay, node() still finds the person.
    demo.inject({
      path: contactsPath,
      transform: (json) => {
        const body = json as { data: { identifier: { contactId: number } }[] }
        for (const item of body.data) item.identifier.contactId += 1_000_000
        return body
      },
    })
    const renumbered = await contactsOfCompany()
    expect(renumbered.map((c) => c.id)).toEqual(contacts.map((c) => c.id))
    expect(renumbered.map((c) => c.contactId)).toEqual(contacts.map((c) => c.contactId + 1_000_000))
    const moved = await stack.execute(Node, { id: target.id })
    expect(moved.data?.node).toMatchObject({
      id: target.id,
      contactId: target.contactId + 1_000_000,
      firstName: target.firstName,
      lastName: target.lastName,
    })
  })

  it('is null with NOT_FOUND for a contact who is no longer among the company’s contacts', async () => {
    const [gone] = await contactsOfCompany()
    if (!gone) throw new Error('no contact')
    demo.inject({
      path: contactsPath,
      transform: (json) => {
        const body = json as { data: { identifier: { contactId: number } }[] }
        return { ...body, data: body.data.filter((c) => c.identifier.contactId !== gone.contactId) }
      },
    })
    const result = await stack.execute(Node, { id: gone.id })
    expect(result.data).toEqual({ node: null })
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['node'], 'NOT_FOUND'],
    ])
  })

  it('is null with NOT_FOUND for a well-formed list ID that names nothing', async () => {
    const result = await stack.execute(Node, { id: globalId('List', '4242') })
    expect(result.data).toEqual({ node: null })
    expect(result.errors?.[0]?.extensions?.code).toBe('NOT_FOUND')
  })

  it.each([
    ['garbage', 'not base64 of type:key'],
    [Buffer.from('List:10011').toString('base64'), 'padded standard base64'],
    [`${globalId('List', '1001')}=`, 'trailing padding'],
    [globalId('Invoice', '12'), 'a type that is no Node'],
    [globalId('List', 'abc'), 'a List ID that is not a number'],
    [globalId('Company', 'BE:0123456789'), 'a company number failing its check'],
    [globalId('Company', 'XX:123'), 'an unknown country'],
    [globalId('Contact', '{"not":"a tuple"}'), 'a Contact ID that is no contact key'],
    [globalId('Contact', 'BE:0922178703:Jan.Peeters'), 'a Contact ID in a readable form'],
    [globalId('Company', 'BE:BE0922178703'), 'a Company ID with the number spelled otherwise'],
    [globalId('Company', 'BE:0922.178.703'), 'a Company ID with dots'],
    [globalId('Company', 'BE:922178703'), 'a Company ID without the leading 0'],
    [globalId('List', '01001'), 'a List ID with a leading 0'],
  ])('refuses %s (%s) with BAD_USER_INPUT before the operation runs', async (id) => {
    const result = await stack.execute(Node, { id })
    expect(result.data).toBeUndefined()
    expect(result.errors?.map((e) => [e.extensions?.argument, e.extensions?.code])).toEqual([
      ['id', 'BAD_USER_INPUT'],
    ])
    expect(demo.calls()).toEqual([])
    // In nodes(ids), the same ID is judged on its own: null with the error at its index.
    const many = await stack.execute(Nodes, { ids: [id] })
    expect(many.data).toEqual({ nodes: [null] })
    expect(many.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['nodes', 0], 'BAD_USER_INPUT'],
    ])
    expect(demo.calls()).toEqual([])
  })

  it('a failure deep below nulls only its nearest nullable parent, under fragments on two types', async () => {
    // `k` answers List.companies in one fragment and Company.contacts in the other.
    const owned = data.companies.find(
      (c) =>
        data.contactsOf(c).length > 0 &&
        data.relationshipsOf(c).parents.some((p) => p.identifier) &&
        data
          .lookalikesOf(c)
          .slice(0, 2)
          .every((l) => typeof l.company.name === 'string'),
    )
    if (!owned) throw new Error('demo data lacks a company with contacts, shareholders and peers')
    // Every shareholder's statements fail: each null lands on that shareholder's company.
    for (const { identifier } of data.relationshipsOf(owned).parents) {
      if (identifier) {
        demo.inject({
          path: `/v1/companies/${identifier.country}/${identifier.companyNumber}/financials`,
          status: 404,
        })
      }
    }
    const { body } = await stack.post(`{ node(id: "${companyId(owned)}") {
      ... on List { k: companies(first: 1) { n: nodes { number } } }
      ... on Company {
        k: contacts(first: 1) { n: nodes { c: company { s: shareholders { company { financials(first: 1) { totalCount } } } } } }
        late: lookalikes(first: 2) { nodes { name } }
      }
    } }`)
    expect(body.errors?.length).toBeGreaterThan(0)
    for (const error of body.errors ?? []) {
      expect(error.path).toEqual([
        'node',
        'k',
        'n',
        0,
        'c',
        's',
        expect.any(Number),
        'company',
        'financials',
      ])
    }
    expect(body.data?.node).toMatchObject({
      late: {
        nodes: data
          .lookalikesOf(owned)
          .slice(0, 2)
          .map((l) => ({ name: l.company.name })),
      },
    })
  })
})

describe('nodes(ids)', () => {
  it('resolves a mix of types in order, each list read once', async () => {
    const lists = data.lists.slice(0, 3)
    const ids = [
      ...lists.map((l) => globalId('List', String(l.id))),
      companyId(company),
      globalId('List', String(lists[0]?.id)),
    ]
    const result = await stack.execute(Nodes, { ids })
    expect(result.errors).toBeUndefined()
    expect(result.data?.nodes).toEqual([
      ...lists.map((l, i) => ({ id: ids[i], __typename: 'List', listId: l.id })),
      { id: ids[3], __typename: 'Company', number: company.companyNumber },
      { id: ids[4], __typename: 'List', listId: lists[0]?.id },
    ])
    const paths = demo.calls().map((c) => c.path)
    expect(paths.filter((p) => p.startsWith('/v1/lists/')).sort()).toEqual(
      lists.map((l) => `/v1/lists/${l.id}`).sort(),
    )
    // The company's existence check is its one read.
    expect(paths.filter((p) => p.startsWith('/v1/companies/'))).toHaveLength(1)
  })

  it('answers each ID on its own: a malformed one and an unknown one fail alone', async () => {
    const ids = [companyId(company), 'not-an-id', globalId('Company', 'NL:00000001')]
    const result = await stack.execute(Nodes, { ids })
    expect(result.data?.nodes).toEqual([
      { id: ids[0], __typename: 'Company', number: company.companyNumber },
      null,
      null,
    ])
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['nodes', 1], 'BAD_USER_INPUT'],
      [['nodes', 2], 'NOT_FOUND'],
    ])
  })

  it('fails only the entries that fail, lists included', async () => {
    const good = globalId('List', String(list.id))
    const result = await stack.execute(Nodes, { ids: [good, globalId('List', '4242')] })
    expect(result.data?.nodes).toEqual([{ id: good, __typename: 'List', listId: list.id }, null])
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['nodes', 1], 'NOT_FOUND'],
    ])
  })

  it('a root field’s refused argument beside them refuses the operation before any ID is read', async () => {
    const ids = data.companies.slice(0, 2).map(companyId)
    const { body } = await stack.post(
      `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Company { number financials(first: 1) { totalCount } } } lists(first: -1) { totalCount } }`,
      { ids },
    )
    expect(body.data).toBeUndefined()
    expect(body.errors?.map((e) => [e.extensions?.argument, e.extensions?.code])).toEqual([
      ['first', 'BAD_USER_INPUT'],
    ])
    expect(demo.calls()).toEqual([])
  })
})

describe('Contact IDs against what the upstream really does', () => {
  const Staff = graphql(`
    query Staff($country: Country!, $number: String!) {
      company(country: $country, number: $number) {
        contacts(first: 100) { nodes { id contactId firstName lastName jobTitle } }
      }
    }
  `)
  const staffOf = async (c: { country: 'BE' | 'NL' | 'FR'; companyNumber: string }) =>
    (await stack.execute(Staff, { country: c.country, number: c.companyNumber })).data?.company
      ?.contacts?.nodes ?? []

  it('tells apart two people of the same name in one company, and node() finds each', async () => {
    expect(data.namesakes().length).toBeGreaterThan(0)
    for (const { company: employer, contacts: pair } of data.namesakes()) {
      const staff = await staffOf(employer)
      const twins = staff.filter(
        (c) => c.firstName === pair[0].firstName && c.lastName === pair[0].lastName,
      )
      expect(twins).toHaveLength(2)
      expect(twins[0]?.id).not.toBe(twins[1]?.id)
      for (const twin of twins) {
        const found = await stack.execute(Node, { id: twin.id })
        expect(found.data?.node).toMatchObject({ id: twin.id, jobTitle: twin.jobTitle })
      }
    }
  })

  it('keeps every ID when the upstream renumbers contacts over time', async () => {
    const [{ company: employer } = { company: undefined }] = data.volatileContacts()
    if (!employer) throw new Error('no volatile contact')
    const before = await staffOf(employer)
    demo.advanceClock(3 * 86_400_000)
    try {
      const after = await staffOf(employer)
      expect(after.map((c) => c.contactId)).not.toEqual(before.map((c) => c.contactId))
      expect(after.map((c) => c.id)).toEqual(before.map((c) => c.id))
      const moved = before.find((c, i) => c.contactId !== after[i]?.contactId)
      if (!moved) throw new Error('no contactId changed')
      const found = await stack.execute(Node, { id: moved.id })
      expect(found.data?.node).toMatchObject({ id: moved.id, lastName: moved.lastName })
    } finally {
      demo.advanceClock(-3 * 86_400_000)
    }
  })

  it('gives a person the same ID in a list and in the company’s contacts', async () => {
    const listWithContacts = data.lists.find((l) => l.contacts.length > 5)
    if (!listWithContacts) throw new Error('no list with contacts')
    const { body } = await stack.post(
      `{ list(listId: ${listWithContacts.id}) { contacts(first: 5) { nodes { id contactId company { country number } } } } }`,
    )
    const found = body.data?.list as
      | {
          contacts: {
            nodes: { id: string; contactId: number; company: { country: 'BE'; number: string } }[]
          }
        }
      | undefined
    const listed = found?.contacts.nodes ?? []
    expect(listed).toHaveLength(5)
    for (const contact of listed) {
      const staff = await staffOf({
        country: contact.company.country,
        companyNumber: contact.company.number,
      })
      expect(staff.find((c) => c.contactId === contact.contactId)?.id).toBe(contact.id)
    }
  })
})

describe('many Contact IDs of one company', () => {
  it('hash its contacts once, not once per ID', async () => {
    const contacts = await contactsOfCompany()
    const everyone = data.contactsOf(company).length
    demo.reset()
    hashes.count = 0
    const result = await stack.execute(Nodes, { ids: contacts.map((c) => c.id) })
    expect(result.errors).toBeUndefined()
    expect(demo.calls().filter((c) => c.path === contactsPath)).toHaveLength(1)
    // Two tags per contact of the company, two per ID answered, two for the caller's share (its
    // token's key, looked up among those the upstream accepted, and its tag), one for the
    // upstream token's key of the one read.
    expect(hashes.count).toBeLessThanOrEqual(2 * everyone + 2 * contacts.length + 3)
    expect(hashes.count).toBeGreaterThan(0)
  })
})

describe('reads that do not depend on each other go out together', () => {
  it('nodes(): the lists and the company’s check are all in flight at once', async () => {
    const lists = data.lists.slice(0, 3)
    const held = demo.hold(/^\/v1\//)
    const result = stack.execute(Nodes, {
      ids: [...lists.map((l) => globalId('List', String(l.id))), companyId(company)],
    })
    // Nothing is answered until all four were received: had one waited for another, this hangs.
    await demo.waitForCalls((calls) => calls.length === 4)
    held.release()
    expect((await result).errors).toBeUndefined()
  })
})

describe('with the cache of reads on (frozen cached answers)', () => {
  const cachedList = data.lists[3]
  if (!cachedList) throw new Error('demo data lacks a fourth list')
  const listId = globalId('List', String(cachedList.id))

  it('finds a list read before by node(), nodes() and a Relay refetch', async () => {
    const first = await cached.post(`{ list(listId: ${cachedList.id}) { id name } }`)
    expect(first.body.errors).toBeUndefined()
    expect(first.body.data).toEqual({ list: { id: listId, name: cachedList.name } })

    const node = await cached.post(
      `query($id: ID!) { node(id: $id) { id ... on List { name } } }`,
      { id: listId },
    )
    expect(node.body.errors).toBeUndefined()
    expect(node.body.data).toEqual({ node: { id: listId, name: cachedList.name } })

    const nodes = await cached.post(
      `query($ids: [ID!]!) { nodes(ids: $ids) { __typename ... on List { listId } } }`,
      { ids: [listId, listId] },
    )
    expect(nodes.body.errors).toBeUndefined()
    expect(nodes.body.data).toEqual({
      nodes: [0, 1].map(() => ({ __typename: 'List', listId: cachedList.id })),
    })

    // What relay-runtime sends to refetch a List fragment, and to page its companies
    // (usePaginationFragment): node(id) spreading the fragment.
    const refetch = await cached.post(
      `query ListPaginationQuery($count: Int = 2, $cursor: String, $id: ID!) {
        node(id: $id) { __typename ...ListFragment id }
      }
      fragment ListFragment on List {
        name
        companies(first: $count, after: $cursor) {
          edges { cursor node { id __typename } }
          pageInfo { endCursor hasNextPage }
        }
        id
      }`,
      { id: listId },
    )
    expect(refetch.body.errors).toBeUndefined()
    expect(refetch.body.data?.node).toMatchObject({
      __typename: 'List',
      id: listId,
      name: cachedList.name,
      companies: { pageInfo: { hasNextPage: true } },
    })
    // Everything after the first operation came from the cache.
    expect(cached.demo.calls().filter((c) => c.path === `/v1/lists/${cachedList.id}`)).toHaveLength(
      1,
    )
  })

  it('finds a company and a contact read before by node()', async () => {
    const contacts = await cached.post(
      `{ company(country: ${company.country}, number: "${company.companyNumber}") {
        id contacts(first: 2) { nodes { id lastName } } } }`,
    )
    const found = contacts.body.data?.company as {
      id: string
      contacts: { nodes: { id: string; lastName: string | null }[] }
    }
    const [contact] = found.contacts.nodes
    if (!contact) throw new Error('no contact')
    for (let round = 0; round < 2; round++) {
      const result = await cached.post(
        `query($ids: [ID!]!) { nodes(ids: $ids) {
          id ... on Company { number } ... on Contact { lastName } } }`,
        { ids: [found.id, contact.id] },
      )
      expect(result.body.errors).toBeUndefined()
      expect(result.body.data).toEqual({
        nodes: [
          { id: found.id, number: company.companyNumber },
          { id: contact.id, lastName: contact.lastName },
        ],
      })
    }
  })
})
