import { describe, expect, it } from 'vitest'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import {
  type ContactItem,
  companyPath,
  contactGaps,
  DATE,
  demoOverHttp,
  expectedIdentifier,
  type FinancialItem,
  type Identifier,
  ISO_MILLIS_UTC,
  identifierGaps,
  type ListBody,
  type ListContactItem,
  type Lookalikes,
  type Member,
  type Paged,
  pathOf,
  type Relationship,
  type Relationships,
  relationshipGaps,
  START,
} from '../support/demo-answers.js'
import { bigList, michiels, smartList } from '../support/fixtures.js'
import {
  CONTACTS,
  CONTACTS_DEFAULT_LIMIT,
  FINANCIALS,
  LIST,
  LIST_COMPANIES,
  LIST_CONTACTS,
  LISTS,
  LOOKALIKES,
  MAX_LIMIT,
  problems,
  RELATIONSHIPS,
  responseShape,
} from '../support/upstream-contract.js'

/**
 * The demo upstream's REST interface checked against contract/upstream-rest-api.md, never against
 * the gateway's own code (nothing from src/upstream/): every answer is compared with the shapes
 * read out of the document, key by key and type by type. The only differences allowed are the
 * ones the demo makes on purpose, listed exactly (missing names and places, missing first names,
 * and a statement not yet received).
 */

const { demo, get, read } = demoOverHttp()
const { data } = demo
/** The company whose every resource these tests read. */
const company = michiels

describe('Authentication: every request carries a bearer token', () => {
  const paths = [
    '/v1/lists',
    `/v1/lists/${bigList.id}`,
    `/v1/lists/${bigList.id}/companies`,
    `/v1/lists/${bigList.id}/contacts`,
    `${companyPath}/financials`,
    `${companyPath}/lookalikes`,
    `${companyPath}/relationships`,
    `${companyPath}/contacts`,
  ]

  it.each(paths)('GET %s answers 401 without a token or with a wrong one', async (path) => {
    expect((await fetch(`${demo.url}${path}`)).status).toBe(401)
    expect((await get(path, { authorization: 'Bearer nope' })).status).toBe(401)
    expect((await get(path, { authorization: DEMO_TOKEN })).status).toBe(401)
    expect((await get(path)).status).toBe(200)
  })
})

describe('unknown lists and companies', () => {
  it('answers 404 for a list that does not exist, on all three list paths', async () => {
    for (const path of ['/v1/lists/4242', '/v1/lists/4242/companies', '/v1/lists/4242/contacts']) {
      expect((await get(path)).status, path).toBe(404)
    }
    expect((await get('/v1/lists/abc/companies')).status).toBe(404)
  })

  it('answers 404 for a company that does not exist, on all four company paths', async () => {
    for (const resource of ['financials', 'lookalikes', 'relationships', 'contacts']) {
      const path = `/v1/companies/BE/0000000097/${resource}`
      expect((await get(path)).status, path).toBe(404)
    }
  })

  it('refuses a country other than BE, NL and FR (the status is the demo’s choice)', async () => {
    expect((await get('/v1/companies/DE/123/financials')).status).toBe(400)
  })
})

describe('paging: limit at most 500, offset, pagination', () => {
  const paged = [
    '/v1/lists?',
    `/v1/lists/${bigList.id}/companies?`,
    `/v1/lists/${bigList.id}/contacts?`,
    `${companyPath}/financials?`,
    `${companyPath}/contacts?`,
  ]

  it.each(paged)('%s accepts limit=500 and refuses a larger limit', async (path) => {
    const page = await read<Paged<unknown>>(`${path}limit=${MAX_LIMIT}`)
    expect(page.pagination.limit).toBe(MAX_LIMIT)
    expect(page.data.length).toBeLessThanOrEqual(MAX_LIMIT)
    expect((await get(`${path}limit=${MAX_LIMIT + 1}`)).status).toBe(400)
    expect((await get(`${path}limit=1000`)).status).toBe(400)
  })

  it.each(paged)('%s echoes limit and offset and gives the total', async (path) => {
    const all = await read<Paged<unknown>>(`${path}limit=${MAX_LIMIT}`)
    const page = await read<Paged<unknown>>(`${path}limit=2&offset=1`)
    expect(page.pagination).toEqual({ limit: 2, offset: 1, total: all.pagination.total })
    expect(page.data).toEqual(all.data.slice(1, 3))
  })

  it('refuses malformed paging', async () => {
    expect((await get(`${companyPath}/contacts?limit=-1`)).status).toBe(400)
    expect((await get('/v1/lists?offset=x')).status).toBe(400)
  })

  it(`pages company contacts ${CONTACTS_DEFAULT_LIMIT} at a time by default, as documented`, async () => {
    const page = await read<Paged<ContactItem>>(`${companyPath}/contacts`)
    expect(page.data).toHaveLength(CONTACTS_DEFAULT_LIMIT)
    expect(page.pagination).toEqual({
      limit: CONTACTS_DEFAULT_LIMIT,
      offset: 0,
      total: data.contactsOf(company).length,
    })
  })
})

describe('GET /v1/lists', () => {
  it.each(['OVERVIEW', 'STATIC', 'SMART'])('type=%s answers documented Lists', async (type) => {
    const body = await read<Paged<ListBody>>(`/v1/lists?type=${type}&limit=500`)
    expect(problems(body, responseShape(LISTS))).toEqual([])
    const expected = data.lists.filter((l) => type === 'OVERVIEW' || l.type === type)
    expect(body.data.map((l) => l.id)).toEqual(expected.map((l) => l.id))
    expect(body.pagination.total).toBe(expected.length)
  })

  it('holds STATIC and SMART lists with the documented values', async () => {
    const { data: lists } = await read<Paged<ListBody>>('/v1/lists?type=OVERVIEW&limit=500')
    expect(new Set(lists.map((l) => l.type))).toEqual(new Set(['STATIC', 'SMART']))
    for (const list of lists) {
      expect(list.updatedAt).toMatch(ISO_MILLIS_UTC)
      expect(list.createdAt).toMatch(ISO_MILLIS_UTC)
      expect(list.createdBy).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/)
      if (list.type === 'STATIC') expect(list.newResults).toBeNull()
      else {
        expect(list.newResults).toEqual(expect.any(Number))
        // Notifications can only be enabled for STATIC lists.
        expect(list.notifications.enabled).toBe(false)
      }
      const members = await read<Paged<Member>>(`/v1/lists/${list.id}/companies?limit=1`)
      expect(members.pagination.total).toBe(list.amountOfCompanies)
    }
  })

  it('refuses an unknown type (the status is the demo’s choice)', async () => {
    expect((await get('/v1/lists?type=BOTH')).status).toBe(400)
  })
})

describe('GET /v1/lists/{id}', () => {
  it('answers { data: [List] }: an array of the one list, no pagination', async () => {
    const { data: overview } = await read<Paged<ListBody>>('/v1/lists?limit=500')
    for (const list of data.lists) {
      const body = await read<{ data: ListBody[] }>(`/v1/lists/${list.id}`)
      expect(problems(body, responseShape(LIST))).toEqual([])
      expect(body).not.toHaveProperty('pagination')
      expect(body.data).toEqual([overview.find((l) => l.id === list.id)])
    }
  })
})

describe('GET /v1/lists/{id}/companies', () => {
  /** Every member of a list (in the given view), page by page, with the problems found. */
  async function members(listId: number, view?: string) {
    const items: Member[] = []
    const found: string[] = []
    let total = 0
    do {
      const type = view ? `type=${view}&` : ''
      const page = await read<Paged<Member>>(
        `/v1/lists/${listId}/companies?${type}limit=500&offset=${items.length}`,
      )
      found.push(
        ...problems(page, responseShape(LIST_COMPANIES)).map((p) =>
          p.replace(/^data\[(\d+)\]/, (_, i) => `data[${items.length + Number(i)}]`),
        ),
      )
      items.push(...page.data)
      total = page.pagination.total
    } while (items.length < total)
    return { items, found }
  }

  it('answers documented items for every member, the missing names and places excepted (1d)', async () => {
    for (const list of data.lists) {
      const { items, found } = await members(list.id)
      expect(items.map((m) => `${m.identifier.country}:${m.identifier.companyNumber}`)).toEqual(
        list.members.map((m) => `${m.company.country}:${m.company.companyNumber}`),
      )
      expect(found).toEqual(
        list.members.flatMap((m, i) => identifierGaps(m.company, `data[${i}].identifier`)),
      )
      expect(items.map((m) => m.identifier)).toEqual(
        list.members.map((m) => expectedIdentifier(m.company)),
      )
      for (const m of items) expect(m.matchedSince).toMatch(ISO_MILLIS_UTC)
    }
  })

  it('pages across 500-item boundaries: every member exactly once', async () => {
    const { items } = await members(bigList.id)
    const keys = items.map((m) => `${m.identifier.country}:${m.identifier.companyNumber}`)
    expect(new Set(keys).size).toBe(bigList.amountOfCompanies)
    const middle = await read<Paged<Member>>(`/v1/lists/${bigList.id}/companies?limit=4&offset=499`)
    expect(middle.data.map((m) => `${m.identifier.country}:${m.identifier.companyNumber}`)).toEqual(
      keys.slice(499, 503),
    )
  })

  it('splits a SMART list into the SAVED, ARCHIVED and NEW views; ALL returns every company', async () => {
    const views = await Promise.all(
      ['ALL', 'SAVED', 'ARCHIVED', 'NEW'].map(
        async (view) => (await members(smartList.id, view)).items,
      ),
    )
    const [all = [], saved = [], archived = [], fresh = []] = views
    const key = (m: Member) => m.identifier.companyNumber
    expect(saved.length).toBeGreaterThan(0)
    expect(archived.length).toBeGreaterThan(0)
    expect(fresh.length).toBe(smartList.newResults)
    expect(new Set([...saved, ...archived, ...fresh].map(key))).toEqual(new Set(all.map(key)))
    expect(saved.length + archived.length + fresh.length).toBe(smartList.amountOfCompanies)
    const { items: plain } = await members(smartList.id)
    expect(plain).toEqual(all)
  })

  it('has no views for a STATIC list: every company whatever the type', async () => {
    const page = await read<Paged<Member>>(`/v1/lists/${bigList.id}/companies?type=NEW&limit=1`)
    expect(page.pagination.total).toBe(bigList.amountOfCompanies)
  })
})

describe('GET /v1/lists/{id}/contacts', () => {
  it('answers documented items with their company, the missing names excepted (1d)', async () => {
    for (const list of data.lists) {
      const body = await read<Paged<ListContactItem>>(`/v1/lists/${list.id}/contacts?limit=500`)
      expect(body.pagination.total).toBe(list.contacts.length)
      expect(problems(body, responseShape(LIST_CONTACTS))).toEqual(
        list.contacts.flatMap(({ contact, company: c }, i) => [
          ...contactGaps(contact, `data[${i}]`),
          ...identifierGaps(c, `data[${i}].company`),
        ]),
      )
      expect(body.data.map((item) => item.company)).toEqual(
        list.contacts.map(({ company: c }) => expectedIdentifier(c)),
      )
      expect(body.data.map((item) => item.identifier.contactId)).toEqual(
        list.contacts.map(({ contact }) => data.contactIdAt(contact, START)),
      )
    }
  })
})

describe('GET /v1/companies/{countryCode}/{companyNumber}/…', () => {
  it('financials: documented records, newest first, paged; dateReceived null is the demo’s one old deviation', async () => {
    const all = data.financialsOf(company)
    const page = await read<Paged<FinancialItem> & { identifier: Identifier }>(
      `${companyPath}/financials?limit=2&offset=1`,
    )
    expect(page.identifier).toEqual(expectedIdentifier(company))
    expect(page.data).toEqual(all.slice(1, 3))
    expect(page.pagination).toEqual({ limit: 2, offset: 1, total: all.length })
    // Every company of the first hundred, whole: the document's types, and the documented ranges.
    // The demo sends `dateReceived: null` for a statement not received yet, which the document
    // types as a string: listed here exactly, so that it cannot spread.
    for (const c of data.companies.slice(0, 100)) {
      const body = await read<Paged<FinancialItem>>(`${pathOf(c, 'financials')}?limit=500`)
      expect(problems(body, responseShape(FINANCIALS))).toEqual([
        ...identifierGaps(c, 'identifier'),
        ...data
          .financialsOf(c)
          .flatMap((r, i) =>
            r.dateReceived === null ? [`data[${i}].dateReceived: null, not string`] : [],
          ),
      ])
      for (const r of body.data) {
        expect([r.startDate, r.endDate]).toEqual([
          expect.stringMatching(DATE),
          expect.stringMatching(DATE),
        ])
        if (r.dateReceived !== null) expect(r.dateReceived).toMatch(DATE)
        expect(r.startDate < r.endDate).toBe(true)
        expect(r.people.employeeMaleRatio + r.people.employeeFemaleRatio).toBeCloseTo(1, 6)
      }
    }
  })

  it('lookalikes: documented items, best score first, scores between 0 and 1, no pagination', async () => {
    for (const c of data.companies.slice(0, 40)) {
      const body = await read<Lookalikes>(pathOf(c, 'lookalikes'))
      expect(problems(body, responseShape(LOOKALIKES))).toEqual(identifierGaps(c, 'identifier'))
      expect(body).not.toHaveProperty('pagination')
      const scores = body.data.map((l) => l.score)
      expect([...scores].sort((a, b) => b - a)).toEqual(scores)
      expect(scores.every((s) => s > 0 && s < 1)).toBe(true)
      for (const { companyId } of body.data) {
        expect(['BE', 'NL', 'FR']).toContain(companyId.country)
        expect(data.company(companyId.country, companyId.companyNumber)).toBeDefined()
      }
    }
    const some = await read<Lookalikes>(`${companyPath}/lookalikes`)
    expect(some.data.length).toBeGreaterThan(0)
  })

  it('relationships: documented items in parents and children, no pagination', async () => {
    const bare = data.companies.find((c) =>
      data.relationshipsOf(c).parents.some((p) => p.identifier === null && p.name === undefined),
    )
    const childless = data.companies.find(
      (c) =>
        data.relationshipsOf(c).parents.length > 0 && data.relationshipsOf(c).children.length === 0,
    )
    const holding = data.companies.find((c) => data.relationshipsOf(c).children.length >= 2)
    if (!bare || !childless || !holding) throw new Error('demo data lacks relationships')
    for (const c of [company, bare, childless, holding, ...data.companies.slice(0, 60)]) {
      const body = await read<Relationships>(pathOf(c, 'relationships'))
      expect(body).not.toHaveProperty('pagination')
      const { parents, children } = body.data
      // "An item may consist only of `identifier` set to null": such items are documented.
      const isBare = (r: Relationship) => r.identifier === null && Object.keys(r).length === 1
      const full = {
        identifier: body.identifier,
        data: {
          parents: parents.filter((r) => !isBare(r)),
          children: children.filter((r) => !isBare(r)),
        },
      }
      expect(problems(full, responseShape(RELATIONSHIPS))).toEqual([
        ...identifierGaps(c, 'identifier'),
        ...full.data.parents.flatMap((r, i) => relationshipGaps(r, `data.parents[${i}]`)),
        ...full.data.children.flatMap((r, i) => relationshipGaps(r, `data.children[${i}]`)),
      ])
      expect(body.data).toEqual(data.relationshipsOf(c))
      for (const r of [...full.data.parents, ...full.data.children]) {
        expect(r.function).toBe('SHAREHOLDER')
      }
    }
    const withBare = await read<Relationships>(pathOf(bare, 'relationships'))
    expect(withBare.data.parents).toContainEqual({ identifier: null })
    const noChildren = await read<Relationships>(pathOf(childless, 'relationships'))
    expect(noChildren.data.children).toEqual([])
  })

  it('contacts: documented items, every filter', async () => {
    const all = data.contactsOf(company)
    const body = await read<Paged<ContactItem>>(`${companyPath}/contacts?limit=500`)
    expect(problems(body, responseShape(CONTACTS))).toEqual(
      all.flatMap((contact, i) => contactGaps(contact, `data[${i}]`)),
    )
    expect(body.data.map((c) => c.identifier.lastName)).toEqual(all.map((c) => c.lastName))

    const first = all[0]
    if (!first) throw new Error('no contact')
    const byName = await read<Paged<ContactItem>>(
      `${companyPath}/contacts?q=${encodeURIComponent(first.lastName)}&limit=500`,
    )
    expect(byName.data.length).toBeGreaterThan(0)
    expect(
      byName.data.every(
        (c) =>
          c.identifier.lastName.includes(first.lastName) || c.jobTitle.includes(first.lastName),
      ),
    ).toBe(true)
    const total = async (query: string) =>
      (await read<Paged<ContactItem>>(`${companyPath}/contacts?${query}&limit=500`)).pagination
        .total
    expect(await total('onlyOfficialRoles=true')).toBe(
      all.filter((c) => c.officialRoles.length > 0).length,
    )
    expect(await total('onlyOfficialRoles=false')).toBe(all.length)
    expect(await total('seniorities=C_LEVEL,NON_MANAGEMENT')).toBe(
      all.filter((c) => ['C_LEVEL', 'NON_MANAGEMENT'].includes(c.position.seniority)).length,
    )
    expect(await total('departments=SALES,FINANCE')).toBe(
      all.filter((c) => ['SALES', 'FINANCE'].includes(c.position.department)).length,
    )
    expect(await total('officialRoles=FOUNDER,COOWNER')).toBe(
      all.filter((c) => c.officialRoles.some((r) => ['FOUNDER', 'COOWNER'].includes(r))).length,
    )
  })

  it('contacts: job titles in the language the header selects (NL, FR, EN)', async () => {
    const chief = data.contactsOf(company)[0]
    const title = async (language: string) =>
      (
        await read<Paged<ContactItem>>(`${companyPath}/contacts?limit=1`, {
          'accept-language': language,
        })
      ).data[0]?.jobTitle
    expect(await title('NL')).toBe(chief?.position.title.NL)
    expect(await title('FR')).toBe(chief?.position.title.FR)
    expect(await title('EN')).toBe(chief?.position.title.EN)
    expect(new Set([await title('NL'), await title('FR'), await title('EN')]).size).toBe(3)
    const french = await read<Paged<ContactItem>>(`${companyPath}/contacts?q=directeur&limit=500`, {
      'accept-language': 'FR',
    })
    expect(french.data.length).toBeGreaterThan(0)
    expect(french.data.every((c) => c.jobTitle.toLowerCase().includes('directeur'))).toBe(true)
  })

  it('answers the company identifier on financials, lookalikes, relationships and contacts', async () => {
    for (const resource of ['financials', 'lookalikes', 'relationships', 'contacts']) {
      const body = await read<{ identifier: Identifier }>(`${companyPath}/${resource}`)
      expect(body.identifier).toEqual(expectedIdentifier(company))
      expect(Object.keys(body.identifier)).toEqual(['country', 'companyNumber', 'name', 'place'])
    }
  })
})
