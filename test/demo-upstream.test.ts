import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { belgianCheckDigits, luhnValid, normaliseCompanyNumber } from '../src/company-number.js'
import { DEMO_TOKEN, DemoUpstream } from '../src/demo-upstream/server.js'
import type { Endpoint } from '../src/upstream/client.js'
import { companyContacts } from '../src/upstream/company-contacts.js'
import { financials } from '../src/upstream/financials.js'
import { listCompanies } from '../src/upstream/list-companies.js'
import { listContacts } from '../src/upstream/list-contacts.js'
import { listDetails, listOverview } from '../src/upstream/lists.js'
import { lookalikes } from '../src/upstream/lookalikes.js'
import { relationships } from '../src/upstream/relationships.js'

/**
 * The demo upstream must implement contract/upstream-rest-api.md faithfully: every other test
 * trusts it. Plain HTTP requests, answers checked against the gateway's zod schemas of the
 * documented shapes and against the data set.
 */

const demo = new DemoUpstream()
const { data } = demo
beforeAll(() => demo.start())
afterAll(() => demo.stop())

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${demo.url}${path}`, {
    headers: { authorization: `Bearer ${DEMO_TOKEN}`, ...headers },
  })
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as unknown,
  }
}

/** GETs a path that must answer 200 in the documented shape of `endpoint`. */
async function read<T>(
  endpoint: Endpoint<never, T>,
  path: string,
  headers?: Record<string, string>,
): Promise<T> {
  const { status, body } = await get(path, headers)
  expect(status, path).toBe(200)
  return endpoint.response.parse(body)
}

const staticBig = data.lists.find((l) => l.type === 'STATIC' && l.amountOfCompanies > 500)
const smartBig = data.lists.find((l) => l.type === 'SMART' && l.amountOfCompanies > 500)
const company = data.companies.find(
  (c) => data.contactsOf(c).length >= 12 && data.financialsOf(c).length >= 5,
)
if (!staticBig || !smartBig || !company)
  throw new Error('demo data lacks the lists or companies these tests need')
const companyPath = `/v1/companies/${company.country}/${company.companyNumber}`

describe('data set', () => {
  it('has at least 2,000 companies in BE, NL and FR with valid, unique numbers', () => {
    expect(data.companies.length).toBeGreaterThanOrEqual(2000)
    for (const country of ['BE', 'NL', 'FR'] as const) {
      expect(data.companies.filter((c) => c.country === country).length).toBeGreaterThan(300)
    }
    for (const c of data.companies) {
      expect(normaliseCompanyNumber(c.country, c.companyNumber)).toEqual({
        ok: true,
        number: c.companyNumber,
      })
    }
    const be = data.companies.find((c) => c.country === 'BE')?.companyNumber ?? ''
    expect(belgianCheckDigits(be.slice(0, 8))).toBe(be.slice(8))
    expect(luhnValid(data.companies.find((c) => c.country === 'FR')?.companyNumber ?? '1')).toBe(
      true,
    )
    expect(new Set(data.companies.map((c) => `${c.country}:${c.companyNumber}`)).size).toBe(
      data.companies.length,
    )
  })

  it('is deterministic', () => {
    const again = new DemoUpstream().data
    expect(again.companies.slice(0, 50).map((c) => c.name)).toEqual(
      data.companies.slice(0, 50).map((c) => c.name),
    )
    expect(again.financialsOf(again.companies[7] as never)).toEqual(
      data.financialsOf(data.companies[7] as never),
    )
  })

  it('has at least 8 lists of both kinds, one STATIC and one SMART with more than 500 members', () => {
    expect(data.lists.length).toBeGreaterThanOrEqual(8)
    expect(staticBig.amountOfCompanies).toBeGreaterThan(500)
    expect(smartBig.amountOfCompanies).toBeGreaterThan(500)
  })

  it('has consistent financial statements: 0 to 10 years, gender ratios adding up to 1, some nulls and losses', () => {
    const all = data.companies.slice(0, 400).map((c) => data.financialsOf(c))
    expect(Math.max(...all.map((f) => f.length))).toBe(10)
    expect(all.some((f) => f.length === 0)).toBe(true)
    const records = all.flat()
    for (const r of records) {
      expect((r.people.employeeMaleRatio ?? 0) + (r.people.employeeFemaleRatio ?? 0)).toBeCloseTo(
        1,
        6,
      )
      expect(r.solvency.debt).toBeCloseTo(
        (r.solvency.totalAssets ?? 0) - (r.solvency.equity ?? 0),
        0,
      )
      expect(r.startDate < r.endDate).toBe(true)
    }
    expect(records.some((r) => r.profitability.revenue === null)).toBe(true)
    expect(records.some((r) => (r.profitability.netProfit ?? 0) < 0)).toBe(true)
  })

  it('has mutual shareholder links and parties without identifier', () => {
    let links = 0
    let anonymous = 0
    for (const c of data.companies) {
      for (const parent of data.relationshipsOf(c).parents) {
        if (parent.identifier === null) {
          anonymous++
          continue
        }
        links++
        const holder = data.company(parent.identifier.country, parent.identifier.companyNumber)
        const back =
          holder &&
          data
            .relationshipsOf(holder)
            .children.find((x) => x.identifier?.companyNumber === c.companyNumber)
        expect(back?.percentage).toBe(parent.percentage)
      }
    }
    expect(links).toBeGreaterThan(300)
    expect(anonymous).toBeGreaterThan(50)
  })
})

describe('authentication and errors', () => {
  it('answers 401 without a valid bearer token', async () => {
    expect((await fetch(`${demo.url}/v1/lists`)).status).toBe(401)
    expect((await get('/v1/lists', { authorization: 'Bearer nope' })).status).toBe(401)
  })

  it('answers 404 for unknown lists, companies and paths, 400 for a bad country', async () => {
    expect((await get('/v1/lists/1')).status).toBe(404)
    expect((await get('/v1/lists/abc/companies')).status).toBe(404)
    expect((await get('/v1/companies/BE/0000000097/financials')).status).toBe(404)
    expect((await get('/v1/nothing')).status).toBe(404)
    expect((await get('/v1/companies/DE/123/financials')).status).toBe(400)
  })

  it('refuses limit above 500 and malformed paging with 400', async () => {
    expect((await get('/v1/lists?limit=501')).status).toBe(400)
    expect((await get(`/v1/lists/${staticBig.id}/companies?limit=1000`)).status).toBe(400)
    expect((await get(`${companyPath}/contacts?limit=-1`)).status).toBe(400)
    expect((await get('/v1/lists?offset=x')).status).toBe(400)
    expect((await get(`/v1/lists?limit=500`)).status).toBe(200)
  })
})

describe('GET /v1/lists and /v1/lists/{id}', () => {
  it('filters by type (OVERVIEW returns both) and pages with pagination', async () => {
    const overview = await read(listOverview, '/v1/lists?type=OVERVIEW&limit=500')
    expect(overview.data).toHaveLength(data.lists.length)
    const smart = await read(listOverview, '/v1/lists?type=SMART&limit=500')
    const stat = await read(listOverview, '/v1/lists?type=STATIC&limit=500')
    expect(smart.data.every((l) => l.type === 'SMART')).toBe(true)
    expect(stat.data.every((l) => l.type === 'STATIC')).toBe(true)
    expect(smart.data.length + stat.data.length).toBe(data.lists.length)
    const page = await read(listOverview, '/v1/lists?limit=3&offset=2')
    expect(page.pagination).toEqual({ limit: 3, offset: 2, total: data.lists.length })
    expect(page.data.map((l) => l.id)).toEqual(overview.data.slice(2, 5).map((l) => l.id))
    expect((await get('/v1/lists?type=BOTH')).status).toBe(400)
  })

  it('returns one list wrapped in an array, SMART with newResults and STATIC with null', async () => {
    const smart = await read(listDetails, `/v1/lists/${smartBig.id}`)
    expect(smart.data).toHaveLength(1)
    expect(smart.data[0]?.newResults).toBe(
      smartBig.members.filter((m) => m.status === 'NEW').length,
    )
    const stat = await read(listDetails, `/v1/lists/${staticBig.id}`)
    expect(stat.data[0]).toMatchObject({
      id: staticBig.id,
      type: 'STATIC',
      newResults: null,
      amountOfCompanies: 1234,
    })
    expect(
      data.lists.filter((l) => l.type === 'SMART').every((l) => !l.notifications.enabled),
    ).toBe(true)
  })
})

describe('GET /v1/lists/{id}/companies', () => {
  it('pages across 500-item boundaries: every member exactly once', async () => {
    const seen: string[] = []
    for (let offset = 0; offset < staticBig.amountOfCompanies; offset += 500) {
      const page = await read(
        listCompanies,
        `/v1/lists/${staticBig.id}/companies?limit=500&offset=${offset}`,
      )
      expect(page.pagination.total).toBe(1234)
      seen.push(...page.data.map((m) => `${m.identifier.country}:${m.identifier.companyNumber}`))
    }
    expect(seen).toHaveLength(1234)
    expect(new Set(seen).size).toBe(1234)
    const middle = await read(
      listCompanies,
      `/v1/lists/${staticBig.id}/companies?limit=4&offset=499`,
    )
    expect(middle.data.map((m) => `${m.identifier.country}:${m.identifier.companyNumber}`)).toEqual(
      seen.slice(499, 503),
    )
  })

  it('splits a SMART list into SAVED, ARCHIVED and NEW views that add up to ALL', async () => {
    const total = async (view: string) =>
      (await read(listCompanies, `/v1/lists/${smartBig.id}/companies?type=${view}&limit=1`))
        .pagination.total
    const [all, saved, archived, fresh] = await Promise.all(
      ['ALL', 'SAVED', 'ARCHIVED', 'NEW'].map(total),
    )
    expect(saved).toBeGreaterThan(0)
    expect(archived).toBeGreaterThan(0)
    expect(fresh).toBe(smartBig.newResults)
    expect((saved ?? 0) + (archived ?? 0) + (fresh ?? 0)).toBe(all)
    expect(all).toBe(smartBig.amountOfCompanies)
  })

  it('ignores the view for a STATIC list', async () => {
    const page = await read(listCompanies, `/v1/lists/${staticBig.id}/companies?type=NEW&limit=1`)
    expect(page.pagination.total).toBe(staticBig.amountOfCompanies)
  })
})

describe('GET /v1/lists/{id}/contacts', () => {
  it('returns contacts with their company', async () => {
    const page = await read(listContacts, `/v1/lists/${staticBig.id}/contacts?limit=10`)
    expect(page.pagination.total).toBe(staticBig.contacts.length)
    expect(page.data[0]?.company.companyNumber).toBe(staticBig.contacts[0]?.company.companyNumber)
  })
})

describe('company endpoints', () => {
  it('financials: identifier, statements newest first, paged', async () => {
    const all = data.financialsOf(company)
    const page = await read(financials, `${companyPath}/financials?limit=2&offset=1`)
    expect(page.identifier).toEqual({
      country: company.country,
      companyNumber: company.companyNumber,
      name: company.name,
      place: company.place,
    })
    expect(page.data).toEqual(all.slice(1, 3))
    expect(page.pagination).toEqual({ limit: 2, offset: 1, total: all.length })
  })

  it('lookalikes: unpaged, best score first', async () => {
    const body = await read(lookalikes, `${companyPath}/lookalikes`)
    const scores = body.data.map((l) => l.score)
    expect(scores.length).toBeGreaterThan(0)
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
    expect(scores.every((s) => s > 0 && s < 1)).toBe(true)
    expect(body).not.toHaveProperty('pagination')
  })

  it('relationships: parents and children, possibly empty', async () => {
    const subsidiary = data.companies.find((c) =>
      data.relationshipsOf(c).parents.some((p) => p.identifier === null),
    )
    const path = `/v1/companies/${subsidiary?.country}/${subsidiary?.companyNumber}/relationships`
    const body = await read(relationships, path)
    expect(body.data.parents.some((p) => p.identifier === null)).toBe(true)
    expect(Array.isArray(body.data.children)).toBe(true)
  })

  it('contacts: 4 by default, every filter, job titles in the selected language', async () => {
    const all = data.contactsOf(company)
    const page = await read(companyContacts, `${companyPath}/contacts`)
    expect(page.data).toHaveLength(4)
    expect(page.pagination).toEqual({ limit: 4, offset: 0, total: all.length })

    const first = all[0]
    const byName = await read(
      companyContacts,
      `${companyPath}/contacts?q=${encodeURIComponent(first?.lastName ?? '')}&limit=500`,
    )
    expect(byName.data.length).toBeGreaterThan(0)
    expect(
      byName.data.every(
        (c) =>
          c.identifier.lastName?.includes(first?.lastName ?? '') ||
          c.jobTitle?.includes(first?.lastName ?? ''),
      ),
    ).toBe(true)

    const official = await read(
      companyContacts,
      `${companyPath}/contacts?onlyOfficialRoles=true&limit=500`,
    )
    expect(official.pagination.total).toBe(all.filter((c) => c.officialRoles.length > 0).length)

    const seniorities = await read(
      companyContacts,
      `${companyPath}/contacts?seniorities=C_LEVEL,NON_MANAGEMENT&limit=500`,
    )
    expect(seniorities.pagination.total).toBe(
      all.filter((c) => ['C_LEVEL', 'NON_MANAGEMENT'].includes(c.position.seniority)).length,
    )
    const departments = await read(
      companyContacts,
      `${companyPath}/contacts?departments=SALES,FINANCE&limit=500`,
    )
    expect(departments.pagination.total).toBe(
      all.filter((c) => ['SALES', 'FINANCE'].includes(c.position.department)).length,
    )
    const roles = await read(
      companyContacts,
      `${companyPath}/contacts?officialRoles=FOUNDER,COOWNER&limit=500`,
    )
    expect(roles.pagination.total).toBe(
      all.filter((c) => c.officialRoles.some((r) => ['FOUNDER', 'COOWNER'].includes(r))).length,
    )

    const chief = (language: string) =>
      read(companyContacts, `${companyPath}/contacts?limit=1`, { 'accept-language': language })
    const titles = first?.position.title
    expect((await chief('NL')).data[0]?.jobTitle).toBe(titles?.NL)
    expect((await chief('FR')).data[0]?.jobTitle).toBe(titles?.FR)
    expect((await chief('EN')).data[0]?.jobTitle).toBe(titles?.EN)
    expect(new Set([titles?.NL, titles?.FR, titles?.EN]).size).toBe(3)
    const frenchSearch = await read(
      companyContacts,
      `${companyPath}/contacts?q=directeur&limit=500`,
      { 'accept-language': 'FR' },
    )
    expect(frenchSearch.data.every((c) => c.jobTitle?.toLowerCase().includes('directeur'))).toBe(
      true,
    )
    expect(frenchSearch.data.length).toBeGreaterThan(0)
  })
})

describe('test hooks', () => {
  it('logs every call with path, query, token and language', async () => {
    demo.reset()
    await get(`${companyPath}/contacts?limit=2&q=x`, { 'accept-language': 'NL' })
    expect(demo.calls()).toEqual([
      {
        method: 'GET',
        path: `${companyPath}/contacts`,
        query: { limit: '2', q: 'x' },
        token: DEMO_TOKEN,
        language: 'NL',
      },
    ])
  })

  it('injects status, Retry-After, malformed bodies and latency per path, a given number of times', async () => {
    demo.reset()
    demo.inject({ path: '/v1/lists', status: 429, retryAfter: '3', times: 1 })
    const limited = await fetch(`${demo.url}/v1/lists`, {
      headers: { authorization: `Bearer ${DEMO_TOKEN}` },
    })
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '3'])
    expect((await get('/v1/lists')).status).toBe(200)

    demo.inject({ path: /\/financials$/, body: '{"data": [' })
    const broken = await fetch(`${demo.url}${companyPath}/financials`, {
      headers: { authorization: `Bearer ${DEMO_TOKEN}` },
    })
    expect(await broken.text()).toBe('{"data": [')

    demo.reset()
    demo.latencyMs = 60
    const started = performance.now()
    await get('/v1/lists')
    expect(performance.now() - started).toBeGreaterThanOrEqual(55)
  })
})
