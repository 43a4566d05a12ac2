import { describe, expect, it } from 'vitest'
import { graphql } from '../gql/index.js'
import { claes, companyArgs, companyVars, michiels } from '../support/fixtures.js'
import { startStack } from '../support/stack.js'

/** Lookalikes, shareholders and participations, and contacts of a company, end to end. */

const stack = await startStack()
const { demo } = stack
const { data } = demo

// By what the tests read of them: 12+ lookalikes, a shareholder without identifier, two or more
// participations, 15+ contacts.
const withAlikes = michiels
const subsidiary = claes
const holding = michiels
const staffed = michiels
const path = (c: { country: string; companyNumber: string }, resource: string) =>
  `/v1/companies/${c.country}/${c.companyNumber}/${resource}`

/** The calls made, as path and query. */
const made = () => demo.calls().map((c) => `${c.path}?${new URLSearchParams(c.query)}`)

/** The statements read of a company asked for by number: it says whether the company exists. */
const check = (c: { country: string; companyNumber: string }) =>
  `${path(c, 'financials')}?limit=500&offset=0`

/** The queries of the contacts reads made, in the order they were sent (filtered first). */
const contactReads = () =>
  demo
    .calls()
    .filter((c) => c.path.endsWith('/contacts'))
    .map((c) => c.query)
    .sort((a, b) => Object.keys(b).length - Object.keys(a).length)

const Lookalikes = graphql(`
  query Lookalikes($country: Country!, $number: String!, $first: Int, $after: String, $last: Int, $before: String, $minScore: Float) {
    company(country: $country, number: $number) {
      lookalikes(first: $first, after: $after, last: $last, before: $before, minScore: $minScore) {
        totalCount
        edges { cursor score node { number name } }
        nodes { number }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }
  }
`)

const LookalikeDetails = graphql(`
  query LookalikeDetails($country: Country!, $number: String!) {
    company(country: $country, number: $number) {
      lookalikes(first: 1) {
        nodes { name place financials(first: 2) { totalCount } shareholders { name } }
      }
    }
  }
`)

const Relationships = graphql(`
  query Relationships($country: Country!, $number: String!) {
    company(country: $country, number: $number) {
      name
      shareholders { name function percentage company { country number name place } }
      participations { name function percentage company { number name } }
    }
  }
`)

const Contacts = graphql(`
  query Contacts(
    $country: Country!, $number: String!, $q: String, $onlyOfficialRoles: Boolean,
    $seniorities: [String!], $departments: [String!], $officialRoles: [String!],
    $first: Int, $after: String, $last: Int, $before: String
  ) {
    company(country: $country, number: $number) {
      contacts(
        q: $q, onlyOfficialRoles: $onlyOfficialRoles, seniorities: $seniorities,
        departments: $departments, officialRoles: $officialRoles,
        first: $first, after: $after, last: $last, before: $before
      ) {
        totalCount
        edges { cursor node { id contactId firstName lastName jobTitle company { number name } } }
        pageInfo { hasNextPage hasPreviousPage endCursor }
      }
    }
  }
`)

describe('Company.lookalikes', () => {
  const alikes = data.lookalikesOf(withAlikes)

  it('pages the unpaged upstream array, best first, with one upstream call for all pages', async () => {
    const first = await stack.execute(Lookalikes, { ...companyVars(withAlikes), first: 5 })
    const l = first.data?.company?.lookalikes
    expect(l?.totalCount).toBe(alikes.length)
    expect(l?.edges.map((e) => [e.node.number, e.score])).toEqual(
      alikes.slice(0, 5).map((a) => [a.company.companyNumber, a.score]),
    )
    expect(l?.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false })
    const next = await stack.execute(Lookalikes, {
      ...companyVars(withAlikes),
      first: 5,
      after: l?.pageInfo.endCursor,
    })
    expect(next.data?.company?.lookalikes?.nodes.map((n) => n.number)).toEqual(
      alikes.slice(5, 10).map((a) => a.company.companyNumber),
    )
    const back = await stack.execute(Lookalikes, {
      ...companyVars(withAlikes),
      last: 5,
      before: next.data?.company?.lookalikes?.pageInfo.startCursor,
    })
    expect(back.data?.company?.lookalikes?.edges).toEqual(l?.edges)
    const tail = await stack.execute(Lookalikes, { ...companyVars(withAlikes), last: 2 })
    expect(tail.data?.company?.lookalikes?.nodes.map((n) => n.number)).toEqual(
      alikes.slice(-2).map((a) => a.company.companyNumber),
    )
    expect(demo.calls().filter((c) => c.path === path(withAlikes, 'lookalikes'))).toHaveLength(4)
  })

  it('filters on minScore before paging', async () => {
    const threshold = alikes[6]?.score ?? 1
    const result = await stack.execute(Lookalikes, {
      ...companyVars(withAlikes),
      first: 50,
      minScore: threshold,
    })
    expect(result.data?.company?.lookalikes?.totalCount).toBe(7)
    expect(result.data?.company?.lookalikes?.edges.every((e) => e.score >= threshold)).toBe(true)
  })

  it('sorts best first even when the upstream does not', async () => {
    demo.inject({
      path: path(withAlikes, 'lookalikes'),
      transform: (json) => {
        const body = json as { data: unknown[] }
        body.data.reverse()
        return body
      },
    })
    const result = await stack.execute(Lookalikes, { ...companyVars(withAlikes), first: 3 })
    expect(result.data?.company?.lookalikes?.nodes.map((n) => n.number)).toEqual(
      alikes.slice(0, 3).map((a) => a.company.companyNumber),
    )
  })

  it('refuses minScore outside 0..1 before any upstream call', async () => {
    for (const minScore of [-0.1, 1.5]) {
      const result = await stack.execute(Lookalikes, { ...companyVars(withAlikes), minScore })
      expect(result.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        argument: 'minScore',
      })
      expect(result.data).toBeUndefined()
    }
    // Refused before the operation runs: nothing is read.
    expect(made()).toEqual([])
  })

  it('learns a lookalike’s name from the call its other fields make: no extra call', async () => {
    const alike = alikes[0]?.company
    if (!alike) throw new Error('no lookalike')
    const result = await stack.execute(LookalikeDetails, companyVars(withAlikes))
    expect(result.data?.company?.lookalikes?.nodes).toEqual([
      {
        name: alike.name,
        place: alike.place,
        financials: { totalCount: data.financialsOf(alike).length },
        shareholders: data.relationshipsOf(alike).parents.map((p) => ({ name: p.name ?? null })),
      },
    ])
    expect(
      demo
        .calls()
        .map((c) => c.path)
        .sort(),
    ).toEqual(
      [
        path(withAlikes, 'financials'),
        path(withAlikes, 'lookalikes'),
        path(alike, 'financials'),
        path(alike, 'relationships'),
      ].sort(),
    )
  })

  it('costs exactly one call per lookalike whose name alone is asked', async () => {
    const result = await stack.execute(Lookalikes, { ...companyVars(withAlikes), first: 4 })
    expect(result.data?.company?.lookalikes?.edges.map((e) => e.node.name)).toEqual(
      alikes.slice(0, 4).map((a) => a.company.name),
    )
    // Beside the company's own statements read, which says it exists.
    expect(
      demo
        .calls()
        .map((c) => c.path)
        .sort(),
    ).toEqual(
      [
        path(withAlikes, 'financials'),
        path(withAlikes, 'lookalikes'),
        ...alikes.slice(0, 4).map((a) => path(a.company, 'financials')),
      ].sort(),
    )
  })
})

describe('a cursor pages only the connection it came from', () => {
  const other = data.companies.find(
    (c) => c !== withAlikes && data.lookalikesOf(c).length >= 5 && data.contactsOf(c).length >= 5,
  )
  if (!other) throw new Error('no second company')

  it('a lookalikes cursor of one company, or of another minScore, is refused', async () => {
    const page = await stack.execute(Lookalikes, { ...companyVars(withAlikes), first: 2 })
    const after = page.data?.company?.lookalikes?.pageInfo.endCursor
    demo.reset()
    for (const args of [
      { ...companyVars(other), after },
      { ...companyVars(withAlikes), after, minScore: 0.5 },
    ]) {
      const result = await stack.execute(Lookalikes, { first: 2, ...args })
      expect(result.errors?.map((e) => [e.extensions?.code, e.extensions?.argument])).toEqual([
        ['BAD_USER_INPUT', 'after'],
      ])
    }
    // The refused field reads nothing; the company's statements read says it exists.
    expect(made()).toEqual([other, withAlikes].map(check))
  })

  it('a contacts cursor is refused in another language: the search also reads job titles', async () => {
    const search = { ...companyVars(staffed), q: 'er', first: 2 }
    const page = await stack.execute(Contacts, search, {
      authorization: 'Bearer demo-token',
      'accept-language': 'en',
    })
    const after = page.data?.company?.contacts?.pageInfo.endCursor
    demo.reset()
    const dutch = await stack.execute(
      Contacts,
      { ...search, after },
      { authorization: 'Bearer demo-token', 'accept-language': 'nl' },
    )
    expect(dutch.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT'])
    expect(made()).toEqual([check(staffed)])
  })

  it('a contacts cursor is refused with other filters, accepted with the same ones in any order', async () => {
    const filtered = {
      ...companyVars(staffed),
      seniorities: ['C_LEVEL', 'VP', 'MANAGER'],
      first: 1,
    }
    const page = await stack.execute(Contacts, filtered)
    const after = page.data?.company?.contacts?.pageInfo.endCursor
    demo.reset()
    const other = await stack.execute(Contacts, { ...filtered, seniorities: ['VP'], after })
    expect(other.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT'])
    expect(made()).toEqual([check(staffed)])
    const same = await stack.execute(Contacts, {
      ...filtered,
      seniorities: ['MANAGER', 'VP', 'C_LEVEL'],
      after,
    })
    expect(same.errors).toBeUndefined()
  })
})

describe('a cursor pages the same collection however its arguments are spelled', () => {
  it('contacts: no seniorities given, null or an empty list page the same collection', async () => {
    const page = await stack.execute(Contacts, {
      ...companyVars(staffed),
      first: 2,
      seniorities: null,
    })
    const after = page.data?.company?.contacts?.pageInfo.endCursor
    for (const seniorities of [[], undefined]) {
      const next = await stack.execute(Contacts, {
        ...companyVars(staffed),
        first: 2,
        seniorities,
        after,
      })
      expect(next.errors).toBeUndefined()
    }
  })

  it('lookalikes: no minScore, null or 0 page the same collection', async () => {
    const page = await stack.execute(Lookalikes, {
      ...companyVars(withAlikes),
      first: 2,
      minScore: null,
    })
    const after = page.data?.company?.lookalikes?.pageInfo.endCursor
    for (const minScore of [0, undefined]) {
      const next = await stack.execute(Lookalikes, {
        ...companyVars(withAlikes),
        first: 2,
        minScore,
        after,
      })
      expect(next.errors).toBeUndefined()
    }
  })
})

describe('Company.shareholders and participations', () => {
  it('maps parents and children; a party without identifier keeps its name, function and share', async () => {
    const result = await stack.execute(Relationships, companyVars(subsidiary))
    const expected = data.relationshipsOf(subsidiary).parents.map((p) => ({
      name: p.name ?? null,
      function: p.function ?? null,
      percentage: p.percentage ?? null,
      company: p.identifier
        ? {
            country: p.identifier.country,
            number: p.identifier.companyNumber,
            name: p.identifier.name,
            place: p.identifier.place,
          }
        : null,
    }))
    expect(result.data?.company?.shareholders).toEqual(expected)
    expect(expected.some((p) => p.company === null && p.name !== null)).toBe(true)
    // Its statements read says it exists and names it; one relationships call serves both
    // lists and the related names.
    expect(
      demo
        .calls()
        .map((c) => c.path)
        .sort(),
    ).toEqual([path(subsidiary, 'financials'), path(subsidiary, 'relationships')])
  })

  it('are mutual: a holding’s participation lists the holding among its shareholders', async () => {
    const result = await stack.execute(Relationships, companyVars(holding))
    const participations = result.data?.company?.participations ?? []
    expect(participations.map((p) => p.company?.number)).toEqual(
      data.relationshipsOf(holding).children.map((c) => c.identifier?.companyNumber),
    )
    const child = data.relationshipsOf(holding).children[0]?.identifier
    if (!child) throw new Error('no child')
    const back = await stack.execute(Relationships, {
      country: child.country,
      number: child.companyNumber,
    })
    const link = back.data?.company?.shareholders?.find(
      (s) => s.company?.number === holding.companyNumber,
    )
    expect(link?.percentage).toBe(participations[0]?.percentage)
  })

  it('a bare { identifier: null } item has nulls everywhere', async () => {
    demo.inject({
      path: path(subsidiary, 'relationships'),
      transform: (json) => {
        const body = json as { data: { parents: unknown[] } }
        body.data.parents = [{ identifier: null }]
        return body
      },
    })
    const result = await stack.execute(Relationships, companyVars(subsidiary))
    expect(result.data?.company?.shareholders).toEqual([
      { name: null, function: null, percentage: null, company: null },
    ])
  })
})

describe('Company.contacts', () => {
  const all = data.contactsOf(staffed)

  it('pages 20 by default and carries the company', async () => {
    const result = await stack.execute(Contacts, companyVars(staffed))
    const contacts = result.data?.company?.contacts
    expect(contacts?.totalCount).toBe(all.length)
    expect(contacts?.edges.map((e) => e.node.contactId)).toEqual(
      all.slice(0, 20).map((c) => c.contactId),
    )
    expect(contacts?.edges[0]?.node.company).toEqual({
      number: staffed.companyNumber,
      name: staffed.name,
    })
    // Read whole, paged by the gateway.
    expect(contactReads()).toEqual([{ limit: '500', offset: '0' }])
  })

  it('sends every filter upstream, lists comma-separated', async () => {
    const result = await stack.execute(Contacts, {
      ...companyVars(staffed),
      q: 'a',
      onlyOfficialRoles: true,
      seniorities: ['C_LEVEL', 'VP'],
      departments: ['SALES', 'GENERAL_MANAGEMENT', 'FINANCE', 'SOFTWARE_ENGINEERING'],
      officialRoles: ['FOUNDER', 'COOWNER', 'DIRECTOR', 'CHAIRMAN', 'MANAGING_DIRECTOR'],
      first: 50,
    })
    // Read whole, and unfiltered too: the IDs rank people over all the company's contacts.
    expect(contactReads()).toEqual([
      {
        q: 'a',
        onlyOfficialRoles: 'true',
        seniorities: 'C_LEVEL,VP',
        departments: 'FINANCE,GENERAL_MANAGEMENT,SALES,SOFTWARE_ENGINEERING',
        officialRoles: 'CHAIRMAN,COOWNER,DIRECTOR,FOUNDER,MANAGING_DIRECTOR',
        limit: '500',
        offset: '0',
      },
      { limit: '500', offset: '0' },
    ])
    const expected = all.filter(
      (c) =>
        ['C_LEVEL', 'VP'].includes(c.position.seniority) &&
        c.officialRoles.length > 0 &&
        ['SALES', 'GENERAL_MANAGEMENT', 'FINANCE', 'SOFTWARE_ENGINEERING'].includes(
          c.position.department,
        ) &&
        [c.firstName, c.lastName, c.position.title.EN].some((t) => t.toLowerCase().includes('a')),
    )
    expect(result.data?.company?.contacts?.edges.map((e) => e.node.contactId)).toEqual(
      expected.map((c) => c.contactId),
    )
  })

  it('gives job titles in the language of Accept-Language', async () => {
    const result = await stack.execute(
      Contacts,
      { ...companyVars(staffed), first: 3 },
      { authorization: 'Bearer demo-token', 'accept-language': 'nl-BE,nl;q=0.9' },
    )
    expect(result.data?.company?.contacts?.edges.map((e) => e.node.jobTitle)).toEqual(
      all.slice(0, 3).map((c) => c.position.title.NL),
    )
  })

  it('refuses empty filter values before any upstream call', async () => {
    for (const args of [{ q: '  ' }, { seniorities: [''] }, { departments: ['SALES,FINANCE'] }]) {
      const result = await stack.execute(Contacts, { ...companyVars(staffed), ...args })
      expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT'])
      expect(result.data).toBeUndefined()
    }
    expect(demo.calls()).toEqual([])
  })

  const distinct = (n: number) => Array.from({ length: n }, (_, i) => `CODE_${i}`)
  it.each([
    ['q', { q: 'a'.repeat(20_000) }, 'q is at most 200 characters.'],
    ['q', { q: '\u{1F600}'.repeat(201) }, 'q is at most 200 characters.'],
    [
      'seniorities',
      { seniorities: distinct(3000) },
      'seniorities holds at most 20 distinct values.',
    ],
    ['departments', { departments: distinct(21) }, 'departments holds at most 20 distinct values.'],
    [
      'officialRoles',
      { officialRoles: ['X'.repeat(51)] },
      'officialRoles values are codes such as C_LEVEL: letters, digits, _ and -, 1 to 50 characters.',
    ],
    [
      'seniorities',
      { seniorities: ['C_LEVEL&limit=500'] },
      'seniorities values are codes such as C_LEVEL: letters, digits, _ and -, 1 to 50 characters.',
    ],
  ])(
    'refuses a %s over its bounds before the operation runs: BAD_USER_INPUT naming it and its limit',
    async (argument, args, message) => {
      const result = await stack.execute(Contacts, { ...companyVars(staffed), ...args })
      expect(
        result.errors?.map((e) => [e.extensions?.code, e.extensions?.argument, e.message]),
      ).toEqual([['BAD_USER_INPUT', argument, message]])
      expect(result.data).toBeUndefined()
      expect(result.extensions?.cost).toMatchObject({ upstreamCalls: 0 })
      expect(demo.calls()).toEqual([])
    },
  )

  it('sends a search and codes at their bounds, each code once', async () => {
    const q = '\u{1F600}'.repeat(200)
    const codes = distinct(20)
    const result = await stack.execute(Contacts, {
      ...companyVars(staffed),
      q,
      seniorities: [...codes, ...codes],
      departments: ['X'.repeat(50)],
    })
    expect(result.errors).toBeUndefined()
    expect(result.data?.company?.contacts?.totalCount).toBe(0)
    expect(contactReads()).toEqual([
      {
        q,
        seniorities: [...codes].sort().join(','),
        departments: 'X'.repeat(50),
        limit: '500',
        offset: '0',
      },
      { limit: '500', offset: '0' },
    ])
  })

  it('checks the filters of a contacts field that runs only', async () => {
    const { body } = await stack.post(
      `query($q: String, $search: Boolean!) { company(${companyArgs(staffed)}) { number contacts(q: $q) @include(if: $search) { totalCount } } }`,
      { q: 'a'.repeat(201), search: false },
    )
    expect(body).toEqual({
      data: { company: { number: staffed.companyNumber } },
      extensions: { cost: expect.objectContaining({ upstreamCalls: 1 }) },
    })
  })
})
