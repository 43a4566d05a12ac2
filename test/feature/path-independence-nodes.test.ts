import { describe, expect, it } from 'vitest'
import type { DemoCompany, DemoContact } from '../../src/demo-upstream/data.js'
import { battery, byPath, company, type Page, RELAY_ARGS } from '../support/battery.js'
import {
  bigList,
  claes,
  companyArgs,
  companyId,
  demoData,
  globalId,
  michiels,
  smartList,
} from '../support/fixtures.js'
import { startPathStates } from '../support/path-states.js'

/**
 * The path-independence battery (./path-independence.test.ts) on node and nodes of every type,
 * Relay's refetch and pagination queries as relay-compiler writes them, fragments and aliases,
 * and errors: the same codes at the same paths, whatever path the gateway took.
 */

const paths = await startPathStates()
const { answered, failed, walk } = battery(paths)

describe(`the same answer on ${paths.title}`, () => {
  describe('node and nodes of every type, with Relay’s refetch and pagination queries', () => {
    /** The Contact IDs of a company's contacts, by full name (found through the battery). */
    async function contactIdsOf(c: DemoCompany) {
      const data = await answered<{ company: { contacts: { nodes: ContactNode[] } } }>(
        `query ContactIds($country: Country!, $number: String!) {
          company(country: $country, number: $number) {
            contacts(first: 500) { nodes { id firstName lastName jobTitle } } } }`,
        company(c),
      )
      return data.company.contacts.nodes
    }
    interface ContactNode {
      id: string
      firstName: string | null
      lastName: string | null
    }
    const idOf = (nodes: ContactNode[], contact: DemoContact) => {
      const found = nodes.filter(
        (n) =>
          n.lastName === contact.lastName &&
          (contact.firstNameUnknown || n.firstName === contact.firstName),
      )
      expect(found.length).toBeGreaterThan(0)
      return found.map((n) => n.id)
    }
    /** Contacts the gateway must tell apart or find again: namesakes, a volatile contactId, no first name. */
    async function hardContactIds() {
      const [namesakes] = demoData.namesakes()
      const [volatile] = demoData.volatileContacts()
      const [nameless] = demoData.contactsWithoutFirstName()
      if (!namesakes || !volatile || !nameless) throw new Error('the demo data lacks hard contacts')
      const ofNamesakes = idOf(await contactIdsOf(namesakes.company), namesakes.contacts[0])
      expect(ofNamesakes).toHaveLength(2)
      return [
        ...ofNamesakes,
        ...idOf(await contactIdsOf(volatile.company), volatile.contact),
        ...idOf(await contactIdsOf(nameless.company), nameless.contact),
      ]
    }

    it('refetches a List, a Company and a Contact as relay-compiler writes the queries', async () => {
      const listRefetch = `query ListHeaderRefetchQuery(
  $id: ID!
) {
  node(id: $id) {
    __typename
    ...ListHeader_list
    id
  }
}

fragment ListHeader_list on List {
  listId
  name
  type
  companyCount
  newResults
  updatedAt
  id
}
`
      for (const listId of [bigList.id, smartList.id, 1010]) {
        const data = await answered<{ node: { listId: number } }>(listRefetch, {
          id: globalId('List', listId),
        })
        expect(data.node.listId).toBe(listId)
      }
      const companyRefetch = `query CompanyHeaderRefetchQuery(
  $id: ID!
) {
  node(id: $id) {
    __typename
    ...CompanyHeader_company
    id
  }
}

fragment CompanyHeader_company on Company {
  country
  number
  name
  place
  shareholders {
    name
    percentage
  }
  id
}
`
      const companies = [claes, demoData.nameless[0], demoData.placeless[0], demoData.widelyHeld]
      for (const c of companies) {
        if (!c) throw new Error('the demo data lacks a nameless or placeless company')
        const data = await answered<{ node: { number: string } }>(companyRefetch, {
          id: companyId(c),
        })
        expect(data.node.number).toBe(c.companyNumber)
      }
      const contactRefetch = `query ContactCardRefetchQuery(
  $id: ID!
) {
  node(id: $id) {
    __typename
    ...ContactCard_contact
    id
  }
}

fragment ContactCard_contact on Contact {
  contactId
  firstName
  lastName
  jobTitle
  company {
    name
    id
  }
  id
}
`
      for (const id of await hardContactIds()) {
        const data = await answered<{ node: { id: string } }>(contactRefetch, { id })
        expect(data.node.id).toBe(id)
      }
    })

    it('nodes(ids:) of every list, some companies and contacts at once, with a fragment on Node', async () => {
      const contacts = (await contactIdsOf(claes)).slice(0, 3).map((n) => n.id)
      const ids = [
        ...demoData.lists.map((l) => globalId('List', l.id)),
        ...[claes, michiels, demoData.widelyHeld].map(companyId),
        ...contacts,
      ]
      const data = await answered<{ nodes: { id: string; __isNode: string }[] }>(
        `query NodesQuery(
  $ids: [ID!]!
) {
  nodes(ids: $ids) {
    __typename
    ...NodeCard_node
    id
  }
}

fragment NodeCard_node on Node {
  __isNode: __typename
  id
  ... on List {
    listId
    listName: name
  }
  ... on Company {
    number
    companyName: name
  }
  ... on Contact {
    firstName
    company {
      number
      id
    }
  }
}
`,
        { ids },
      )
      expect(data.nodes.map((n) => n.id)).toEqual(ids)
    })

    it('pages a Company’s financials through node(id), as usePaginationFragment does', async () => {
      const statements = await walk<{ node: { financials: Page } }>(
        {
          operation: (args) => `query CompanyFinancialsPaginationQuery(
  $count: Int = 3
  $cursor: String
  $id: ID!
) {
  node(id: $id) {
    __typename
    ...CompanyFinancials_company_1G22uz
    id
  }
}

fragment CompanyFinancials_company_1G22uz on Company {
  financials(${args}) {
    edges {
      node {
        endDate
        profitability {
          revenue
          netProfit
        }
        __typename
      }
      cursor
    }
    pageInfo {
      endCursor
      hasNextPage
    }
  }
  id
}
`,
          variables: { id: companyId(claes) },
          pageOf: (data) => data.node.financials,
          count: 3,
        },
        'forward',
      )
      expect(statements.items).toHaveLength(demoData.financialsOf(claes).length)
    })

    it('pages a List’s companies both ways through node(id), Relay’s bidirectional query', async () => {
      const walked = {
        operation: () => `query ListCompaniesPaginationQuery(
  $after: String
  $before: String
  $first: Int
  $last: Int
  $id: ID!
  $view: SmartListView
) {
  node(id: $id) {
    __typename
    ...ListCompanies_list_2oUbQs
    id
  }
}

fragment ListCompanies_list_2oUbQs on List {
  companies(${RELAY_ARGS}, view: $view) {
    edges {
      matchedSince
      node {
        number
        name
        id
        __typename
      }
      cursor
    }
    pageInfo {
      endCursor
      hasNextPage
      hasPreviousPage
      startCursor
    }
  }
  id
}
`,
        variables: { id: globalId('List', 1007), view: null },
        pageOf: (data: { node: { companies: Page } }) => data.node.companies,
        count: 10,
        relay: true,
      }
      const forward = await walk(walked, 'forward')
      expect(forward.items).toHaveLength(25)
      expect((await walk(walked, 'backward')).items).toEqual(forward.items)
    })

    it('pages the lists from a fragment on Query, as a refetchable root fragment does', async () => {
      const lists = await walk<{ lists: Page }>(
        {
          operation: (args) => `query ListsPaginationQuery(
  $count: Int = 3
  $cursor: String
  $kind: ListKind
) {
  ...ListsFragment_1G22uz
}

fragment ListsFragment_1G22uz on Query {
  lists(${args}, kind: $kind) {
    edges {
      node {
        listId
        name
        type
        id
        __typename
      }
      cursor
    }
    pageInfo {
      endCursor
      hasNextPage
    }
  }
}
`,
          variables: { kind: null },
          pageOf: (data) => data.lists,
          count: 4,
        },
        'forward',
      )
      expect(lists.items).toHaveLength(demoData.lists.length)
    })
  })

  describe('fragments and aliases', () => {
    it('the same selection in the operation and in a fragment: within the budget on every path', async () => {
      // 501 upstream calls at most (the lists, then each list's companies), under 1,000, however
      // the fragment is delivered.
      const members = 'lists(first: 500) { nodes { listId companies(first: 1) { totalCount } } }'
      const data = await answered<{ lists: { nodes: unknown[] } }>(
        `{ ${members} ...Members } fragment Members on Query { ${members} }`,
      )
      expect(data.lists.nodes).toHaveLength(demoData.lists.length)
    })

    it('one field under several aliases with other arguments, in nested named fragments', async () => {
      const data = await answered<{ first: { newest: Page; oldest: Page } }>(
        `query Aliased($withPlace: Boolean!, $skipPeers: Boolean!) {
          first: company(${companyArgs(claes)}) { ...Money ...Peers @skip(if: $skipPeers) }
          second: company(${companyArgs(michiels)}) { ...Peers label: name place @include(if: $withPlace) }
          lists: lists(first: 2) { nodes { ... on List { listId } ...ListCard } }
        }
        fragment Money on Company {
          newest: financials(first: 2) { ...StatementPage }
          oldest: financials(last: 2) { ...StatementPage }
        }
        fragment StatementPage on FinancialConnection { totalCount edges { cursor node { endDate } } }
        fragment Peers on Company {
          best: lookalikes(first: 1) { edges { score node { ...CompanyCard } } }
          close: lookalikes(minScore: 0.9) { totalCount nodes { ...CompanyCard } }
          owners: shareholders { company { ...CompanyCard } }
        }
        fragment CompanyCard on Company { id number name }
        fragment ListCard on List { name firstMembers: companies(first: 2) { nodes { ...CompanyCard } } }`,
        { withPlace: true, skipPeers: false },
      )
      expect(data.first.newest.edges).toHaveLength(2)
      expect(data.first.oldest.edges).toHaveLength(2)
    })
  })

  describe('errors: the same codes at the same paths', () => {
    const unknown = { country: 'BE', companyNumber: '0000000097' }

    it('a company the upstream does not know is null with NOT_FOUND, whatever is asked of it', async () => {
      for (const fields of [
        'name',
        `financials(first: 2) { totalCount } lookalikes { totalCount }`,
        'number',
      ]) {
        expect(await failed(`{ company(${companyArgs(unknown)}) { ${fields} } }`)).toEqual({
          data: { company: null },
          errors: [{ code: 'NOT_FOUND', path: ['company'] }],
        })
      }
    })

    describe('a company whose lookalikes the upstream refuses while its statements read: the company stands, its lookalikes alone null', () => {
      const lookalikes = 'lookalikes(first: 2) { totalCount }'
      const member = demoData.list(1005)?.members[0]?.company
      const owners = demoData.relationshipsOf(claes).parents
      const owner = owners.find((p) => p.identifier)?.identifier
      const peer = demoData.lookalikesOf(michiels)[0]?.company
      if (!member || !owner || !peer) throw new Error('the demo data lost a company this test asks')
      const refused = (c: { name?: string }) => ({ name: c.name ?? null, lookalikes: null })
      /** Where: the company whose lookalikes are refused, the operation, its data, the error's path. */
      const entries: [string, DemoCompany | typeof owner, string, unknown, (string | number)[]][] =
        [
          [
            'company(…), its name asked first',
            claes,
            `{ company(${companyArgs(claes)}) { name ${lookalikes} } }`,
            { company: refused(claes) },
            ['company', 'lookalikes'],
          ],
          [
            'company(…), its lookalikes asked first',
            claes,
            `{ company(${companyArgs(claes)}) { ${lookalikes} name } }`,
            { company: refused(claes) },
            ['company', 'lookalikes'],
          ],
          [
            'node(id)',
            claes,
            `{ node(id: "${companyId(claes)}") { ... on Company { ${lookalikes} name } } }`,
            { node: refused(claes) },
            ['node', 'lookalikes'],
          ],
          [
            'nodes(ids), beside a company whose lookalikes read',
            claes,
            `{ nodes(ids: ["${companyId(michiels)}", "${companyId(claes)}"]) {
            ... on Company { name ${lookalikes} } } }`,
            {
              nodes: [
                {
                  name: michiels.name,
                  lookalikes: { totalCount: demoData.lookalikesOf(michiels).length },
                },
                refused(claes),
              ],
            },
            ['nodes', 1, 'lookalikes'],
          ],
          [
            'a list’s member',
            member,
            `{ list(listId: 1005) { companies(first: 1) { nodes { ${lookalikes} name } } } }`,
            { list: { companies: { nodes: [refused(member)] } } },
            ['list', 'companies', 'nodes', 0, 'lookalikes'],
          ],
          [
            'a shareholder',
            owner,
            `{ company(${companyArgs(claes)}) { shareholders { company { name ${lookalikes} } } } }`,
            {
              company: {
                shareholders: owners.map((p) => ({
                  company: p.identifier && refused(p.identifier),
                })),
              },
            },
            [
              'company',
              'shareholders',
              owners.findIndex((p) => p.identifier),
              'company',
              'lookalikes',
            ],
          ],
          [
            'a lookalike (only its number given: its name read)',
            peer,
            `{ company(${companyArgs(michiels)}) { lookalikes(first: 1) { nodes { ${lookalikes} name } } } }`,
            { company: { lookalikes: { nodes: [refused(peer)] } } },
            ['company', 'lookalikes', 'nodes', 0, 'lookalikes'],
          ],
        ]
      it.each(
        (
          [
            ['NOT_FOUND', 404],
            ['UNAUTHENTICATED', 401],
            ['FORBIDDEN', 403],
          ] as const
        ).flatMap(([code, status]) => entries.map((entry) => [code, status, ...entry] as const)),
      )('%s (%s) for %s', async (code, status, _where, target, query, data, path) => {
        const fault = {
          path: new RegExp(`/${target.country}/${target.companyNumber}/lookalikes$`),
          status,
        }
        expect(await paths.whileFaulty(fault, () => failed(query))).toEqual({
          data,
          errors: [{ code, path }],
        })
      })
    })

    it('arguments invalid on their own refuse the operation before it runs: BAD_USER_INPUT for each, no data', async () => {
      const { errors, data } = await failed(
        `{
          ok: company(${companyArgs(claes)}) { name }
          wrongChecksum: company(country: BE, number: "0922178704") { name }
          negative: list(listId: -1) { name }
          tooMany: lists(first: 501) { totalCount }
          both: lists(first: 1, last: 1) { totalCount }
          malformedCursor: lists(first: 1, after: "not a cursor") { totalCount }
          scores: company(${companyArgs(michiels)}) { number lookalikes(minScore: 1.5) { totalCount } }
          pages: lists(first: 2) { nodes { listId companies(last: 600) { totalCount } } }
        }`,
      )
      expect(data).toBeUndefined()
      expect(errors).toEqual(Array(7).fill({ code: 'BAD_USER_INPUT', path: undefined }))
    })

    it('a well-formed cursor of another connection, known only once its parent is: BAD_USER_INPUT at its path, no other field lost', async () => {
      const { errors, data } = await failed<{ ok: { name: string } }>(
        `query Foreign($cursor: String) {
          ok: company(${companyArgs(claes)}) { name }
          foreignCursor: lists(first: 1, after: $cursor) { totalCount }
          peers: company(${companyArgs(michiels)}) { number lookalikes(after: $cursor) { totalCount } }
        }`,
        { cursor: Buffer.from('0:not-this-one').toString('base64url') },
      )
      expect(data.ok.name).toBe(claes.name)
      expect(errors).toEqual(
        byPath(
          [['foreignCursor'], ['peers', 'lookalikes']].map((path) => ({
            code: 'BAD_USER_INPUT',
            path,
          })),
        ),
      )
    })

    it('node and nodes: malformed, unknown and known IDs side by side', async () => {
      const [someone] = await contactIds()
      if (!someone) throw new Error(`${claes.name} has no contact in the demo data`)
      // The same person's ID, as if at another company: nobody there has that name.
      const elsewhere = (id: string) =>
        globalId(
          'Contact',
          Buffer.from(id, 'base64url')
            .toString()
            .replace(`Contact:BE:${claes.companyNumber}:`, `BE:${michiels.companyNumber}:`),
        )
      const ids = [
        globalId('List', bigList.id),
        'nope',
        globalId('List', 999999),
        companyId(unknown),
        globalId('Financial', 1),
        someone,
        elsewhere(someone),
        companyId(claes),
      ]
      const { errors, data } = await failed<{ nodes: ({ id: string } | null)[]; node: null }>(
        `query Mixed($ids: [ID!]!, $id: ID!) {
          nodes(ids: $ids) { id ... on Company { name } ... on Contact { lastName } }
          node(id: $id) { id }
        }`,
        { ids, id: globalId('List', 999998) },
      )
      expect(data.nodes.map((n) => n?.id ?? null)).toEqual([
        ids[0],
        null,
        null,
        null,
        null,
        ids[5],
        null,
        ids[7],
      ])
      expect(errors).toEqual(
        byPath(
          [
            ['NOT_FOUND', ['node']],
            ['BAD_USER_INPUT', ['nodes', 1]],
            ['NOT_FOUND', ['nodes', 2]],
            ['NOT_FOUND', ['nodes', 3]],
            ['BAD_USER_INPUT', ['nodes', 4]],
            ['NOT_FOUND', ['nodes', 6]],
          ].map(([code, path]) => ({ code, path })),
        ),
      )
    })

    async function contactIds() {
      const data = await answered<{ company: { contacts: { nodes: { id: string }[] } } }>(
        `{ company(${companyArgs(claes)}) { contacts(first: 2) { nodes { id } } } }`,
      )
      return data.company.contacts.nodes.map((n) => n.id)
    }

    it('a refused argument asked in several fragments: one error, however many places ask it', async () => {
      const peers = 'lookalikes(minScore: 1.5) { totalCount }'
      expect(
        await failed(`{ company(${companyArgs(claes)}) { number ${peers} ...Peers } }
          fragment Peers on Company { ${peers} number }`),
      ).toEqual({ data: undefined, errors: [{ code: 'BAD_USER_INPUT', path: undefined }] })
    })

    it('variables of the wrong type, and an operation over the budget: refused before it runs', async () => {
      const typed = 'query Typed($count: Int) { lists(first: $count) { totalCount } }'
      const wrongType = await failed(typed, { count: 'three' })
      expect(wrongType.errors.map((e) => e.code)).toEqual(['BAD_USER_INPUT'])
      const costly = await failed(
        '{ lists(first: 500) { nodes { companies(first: 500) { nodes { financials(first: 1) { totalCount } } } } } }',
      )
      expect(costly.errors.map((e) => e.code)).toEqual(['QUERY_TOO_COSTLY'])
    })
  })
})
