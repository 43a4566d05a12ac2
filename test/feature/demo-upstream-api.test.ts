import { readFileSync } from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type DemoCompany, type DemoContact, DemoData } from '../../src/demo-upstream/data.js'
import { DEMO_TOKEN, DemoUpstream, type ReceivedCall } from '../../src/demo-upstream/server.js'
import { normaliseCompanyNumber } from '../../src/domain/company-number.js'

/**
 * The demo upstream must implement contract/upstream-rest-api.md faithfully: every other test
 * trusts it. This file checks it against that document, never against the gateway's own code
 * (nothing from src/upstream/): the field tables and response shapes are read out of the
 * document itself, and every answer is compared with them, key by key and type by type. The only
 * differences allowed are the ones the demo makes on purpose, listed exactly (missing names and
 * places, missing first names, and a statement not yet received).
 */

// ─── The document, as this test reads it ─────────────────────────────────────────────────────

const DOC = readFileSync(new URL('../../contract/upstream-rest-api.md', import.meta.url), 'utf8')

type Primitive = 'string' | 'integer' | 'number' | 'boolean'
type Shape =
  | { kind: Primitive }
  | { kind: 'nullable'; of: Shape }
  | { kind: 'array'; of: Shape }
  | { kind: 'object'; fields: Record<string, Shape> }

const PRIMITIVES: readonly string[] = ['string', 'integer', 'number', 'boolean']
const isPrimitive = (text: string): text is Primitive => PRIMITIVES.includes(text)

/** The text of the document from one heading to another. */
function part(from: string, to: string): string {
  const start = DOC.indexOf(from)
  const end = DOC.indexOf(to, start + from.length)
  if (start < 0 || end < 0) throw new Error(`the document has no part "${from}" … "${to}"`)
  return DOC.slice(start + from.length, end)
}

/** The `### ` sections of a part: heading and body. */
function sections(text: string): { heading: string; body: string }[] {
  return text
    .split(/^### /m)
    .slice(1)
    .map((chunk) => {
      const newline = chunk.indexOf('\n')
      return { heading: chunk.slice(0, newline).trim(), body: chunk.slice(newline + 1) }
    })
}

/** The rows of the (first) table of a section, keyed by the lower-cased header cells. */
function table(body: string): Record<string, string>[] {
  const lines = body.split('\n').filter((line) => line.trim().startsWith('|'))
  const cells = (line: string) =>
    line
      .trim()
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim())
  const [header, _rule, ...rows] = lines
  if (!header) return []
  const names = cells(header).map((name) => name.toLowerCase())
  return rows.map((row) => Object.fromEntries(cells(row).map((c, i) => [names[i] ?? `${i}`, c])))
}

/** "### Company identifier (object, `identifier`)" → "company identifier", and its body. */
const resourceBodies = new Map(
  sections(part('## Resources and their fields', '## States and transitions')).map(
    ({ heading, body }) => [(heading.split(' (')[0] ?? heading).toLowerCase(), body],
  ),
)
const resourceShapes = new Map<string, Shape>()

/** A resource of the document as a shape, from its field table. */
function resource(name: string): Shape {
  const key = name.toLowerCase()
  const known = resourceShapes.get(key)
  if (known) return known
  const body = resourceBodies.get(key)
  if (body === undefined) throw new Error(`the document has no resource "${name}"`)
  // "All monetary and ratio fields are JSON numbers": the type of a field listed without one.
  const listedType = /are JSON numbers/.test(body) ? 'number' : undefined
  const fields: Record<string, Shape> = {}
  for (const row of table(body)) {
    fields[row.field ?? ''] = typeShape(row.type ?? '', row.notes ?? '', listedType)
  }
  const shape: Shape = { kind: 'object', fields }
  resourceShapes.set(key, shape)
  return shape
}

/** The resource a text names, the longest name first ("company identifier of the requested company"). */
function named(text: string): Shape {
  const lower = text.trim().toLowerCase()
  const name = [...resourceBodies.keys()]
    .filter((n) => lower === n || lower.startsWith(`${n} `))
    .sort((a, b) => b.length - a.length)[0]
  if (!name) throw new Error(`the document names no resource "${text}"`)
  return resource(name)
}

/** A Type cell: "integer", "integer or null", "array of string", "company identifier", "object". */
function typeShape(type: string, notes: string, listedType?: string): Shape {
  const orNull = /^(.*) or null$/.exec(type)
  if (orNull) return { kind: 'nullable', of: typeShape(orNull[1] ?? '', notes, listedType) }
  const arrayOf = /^array of (.*)$/.exec(type)
  if (arrayOf) return { kind: 'array', of: typeShape(arrayOf[1] ?? '', notes, listedType) }
  if (isPrimitive(type)) return { kind: type }
  if (type === 'object') return objectFromNotes(notes, listedType)
  return named(type)
}

/**
 * An object described in the Notes cell: inline (`{ a: integer, b }`, a bare key taking its type
 * from the resource of "same fields as a …"), or as a list "a (number, nullable), b; prose".
 */
function objectFromNotes(notes: string, listedType?: string): Shape {
  const inline = /`(\{[^`]*\})`/.exec(notes)
  if (inline) {
    const same = /same fields as a ([a-z ]+)\)/.exec(notes)
    const base = same ? named(same[1] ?? '') : undefined
    return parseShape(inline[1] ?? '', (key) => {
      const field = base?.kind === 'object' ? base.fields[key] : undefined
      if (!field) throw new Error(`the document gives no type for ${key} in "${notes}"`)
      return field
    })
  }
  const fields: Record<string, Shape> = {}
  const list = notes.split(';')[0] ?? ''
  for (const entry of list.match(/[A-Za-z]+(?: \([^)]*\))?/g) ?? []) {
    const [, name = '', details = ''] = /^([A-Za-z]+)(?: \(([^)]*)\))?$/.exec(entry) ?? []
    const words = details.split(',').map((w) => w.trim())
    const type = words.find(isPrimitive) ?? listedType
    if (type === undefined || !isPrimitive(type)) {
      throw new Error(`the document gives no type for ${entry}`)
    }
    fields[name] = words.includes('nullable')
      ? { kind: 'nullable', of: { kind: type } }
      : { kind: type }
  }
  return { kind: 'object', fields }
}

/** `{ key: value, bareKey }`, `[Type, ...]` or a type name; a bare key names a resource. */
function parseShape(text: string, bare: (key: string) => Shape = named): Shape {
  const tokens = text
    .split(/([{}[\],:])/)
    .map((t) => t.trim())
    .filter((t) => t !== '')
  let i = 0
  const value = (): Shape => {
    const token = tokens[i++] ?? ''
    if (token === '{') {
      const fields: Record<string, Shape> = {}
      while (i < tokens.length && tokens[i] !== '}') {
        const key = tokens[i++] ?? ''
        if (tokens[i] === ':') {
          i++
          fields[key] = value()
        } else fields[key] = bare(key)
        if (tokens[i] === ',') i++
      }
      i++
      return { kind: 'object', fields }
    }
    if (token === '[') {
      const of = value()
      while (i < tokens.length && tokens[i] !== ']') i++ // ", ..."
      i++
      return { kind: 'array', of }
    }
    return isPrimitive(token) ? { kind: token } : named(token)
  }
  return value()
}

/** The endpoints: path template, response shape (from "Response: `…`") and query table. */
const endpoints = sections(part('## Endpoints', '## Authentication'))
  .filter(({ heading }) => /^\d+\./.test(heading))
  .map(({ heading, body }) => ({
    heading,
    path: /`GET ([^`]+)`/.exec(body)?.[1] ?? '',
    response: parseShape(/Response: `([^`]+)`/.exec(body)?.[1] ?? ''),
    query: table(body),
  }))

function responseShape(template: string): Shape {
  const endpoint = endpoints.find((e) => e.path === template)
  if (!endpoint) throw new Error(`the document has no endpoint ${template}`)
  return endpoint.response
}

const LISTS = '/v1/lists'
const LIST = '/v1/lists/{id}'
const LIST_COMPANIES = '/v1/lists/{id}/companies'
const LIST_CONTACTS = '/v1/lists/{id}/contacts'
const FINANCIALS = '/v1/companies/{countryCode}/{companyNumber}/financials'
const LOOKALIKES = '/v1/companies/{countryCode}/{companyNumber}/lookalikes'
const RELATIONSHIPS = '/v1/companies/{countryCode}/{companyNumber}/relationships'
const CONTACTS = '/v1/companies/{countryCode}/{companyNumber}/contacts'

/** "Paged endpoints accept query `limit` (…, maximum 500)". */
const MAX_LIMIT = Number(/`limit` \([^)]*maximum (\d+)\)/.exec(DOC)?.[1])
/** The Default column of the company contacts' `limit`. */
const CONTACTS_DEFAULT_LIMIT = Number(
  endpoints.find((e) => e.path === CONTACTS)?.query.find((q) => q.query === 'limit')?.default,
)

/**
 * How an answer differs from a shape: "data[2].identifier.name: missing", "x: null, not string",
 * "pagination: not in the document". Empty when the answer is exactly as documented.
 */
function problems(value: unknown, shape: Shape, path = ''): string[] {
  const at = (key: string | number) =>
    typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key
  switch (shape.kind) {
    case 'nullable':
      return value === null ? [] : problems(value, shape.of, path)
    case 'array':
      return Array.isArray(value)
        ? value.flatMap((item, i) => problems(item, shape.of, at(i)))
        : [`${path}: ${kindOf(value)}, not array`]
    case 'object': {
      if (kindOf(value) !== 'object') return [`${path}: ${kindOf(value)}, not object`]
      const record = value as Record<string, unknown>
      return [
        ...Object.entries(shape.fields).flatMap(([key, field]) =>
          key in record ? problems(record[key], field, at(key)) : [`${at(key)}: missing`],
        ),
        ...Object.keys(record)
          .filter((key) => !(key in shape.fields))
          .map((key) => `${at(key)}: not in the document`),
      ]
    }
    default: {
      const kind = kindOf(value)
      const fits = kind === shape.kind || (shape.kind === 'number' && kind === 'integer')
      return fits ? [] : [`${path}: ${kind}, not ${shape.kind}`]
    }
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

// ─── The demo, its data and plain HTTP ───────────────────────────────────────────────────────

/** The demo's clock stands still unless a test moves it; volatile contactIds follow it. */
const START = Date.parse('2026-11-21T12:00:00.000Z')
const HOUR = 3_600_000
const DAY = 24 * HOUR
const demo = new DemoUpstream({ now: () => START })
const { data } = demo
beforeAll(() => demo.start())
afterEach(() => demo.reset())
afterAll(() => demo.stop())

interface Answer {
  status: number
  headers: Headers
  body: unknown
}

async function get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${demo.url}${path}`, {
    headers: { authorization: `Bearer ${DEMO_TOKEN}`, ...headers },
  })
  return { status: response.status, headers: response.headers, body: await response.json() }
}

/** The answer of a path that must answer 200; the type is only what the test then reads. */
async function read<T>(path: string, headers?: Record<string, string>): Promise<T> {
  const { status, body } = await get(path, headers)
  expect(status, path).toBe(200)
  return body as T
}

/** What the test reads of the answers: shapes are checked against the document separately. */
interface Identifier {
  country: string
  companyNumber: string
  name?: string
  place: string | null
}
interface Pagination {
  limit: number
  offset: number
  total: number
}
interface Paged<T> {
  data: T[]
  pagination: Pagination
}
interface ListBody {
  id: number
  type: string
  notifications: { enabled: boolean }
  amountOfCompanies: number
  newResults: number | null
  updatedAt: string
  createdAt: string
  createdBy: string
}
interface Member {
  identifier: Identifier
  matchedSince: string
}
interface ContactItem {
  jobTitle: string
  identifier: { contactId: number; firstName: string | null; lastName: string }
}
interface ListContactItem extends ContactItem {
  company: Identifier
}
interface FinancialItem {
  startDate: string
  endDate: string
  dateReceived: string | null
  people: { employeeMaleRatio: number; employeeFemaleRatio: number }
}
interface Relationship {
  identifier: Identifier | null
  function?: string
  percentage?: number
  name?: string
}
interface Relationships {
  identifier: Identifier
  data: { parents: Relationship[]; children: Relationship[] }
}
interface Lookalikes {
  identifier: Identifier
  data: { companyId: { country: string; companyNumber: string }; score: number }[]
}

const pathOf = (c: { country: string; companyNumber: string }, resource: string) =>
  `/v1/companies/${c.country}/${c.companyNumber}/${resource}`

function demoCompany(identifier: { country: string; companyNumber: string }): DemoCompany {
  const company = data.company(identifier.country, identifier.companyNumber)
  if (!company)
    throw new Error(`${identifier.country}:${identifier.companyNumber} is no demo company`)
  return company
}

/** The identifier the document describes for a company of the data set (1d: name omitted). */
function expectedIdentifier(company: DemoCompany): Identifier {
  return {
    country: company.country,
    companyNumber: company.companyNumber,
    ...(company.name === undefined ? {} : { name: company.name }),
    place: company.place,
  }
}

/** The differences from the document the demo makes on purpose in a company identifier (1d). */
function identifierGaps(company: DemoCompany, path: string): string[] {
  return [
    ...(company.name === undefined ? [`${path}.name: missing`] : []),
    ...(company.place === null ? [`${path}.place: null, not string`] : []),
  ]
}

/** …and in a contact (1d): no first name. */
function contactGaps(contact: DemoContact, path: string): string[] {
  return contact.firstNameUnknown ? [`${path}.identifier.firstName: null, not string`] : []
}

/** …and in a relationship item: its company's gaps, and no `name` for a nameless company. */
function relationshipGaps(item: Relationship, path: string): string[] {
  if (item.identifier === null) return []
  const related = demoCompany(item.identifier)
  return [
    ...identifierGaps(related, `${path}.identifier`),
    ...(related.name === undefined ? [`${path}.name: missing`] : []),
  ]
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`demo data lacks ${what}`)
  return value
}

const ISO_MILLIS_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const DATE = /^\d{4}-\d\d-\d\d$/

const staticBig = data.lists.find((l) => l.type === 'STATIC' && l.amountOfCompanies > 500)
const smartBig = data.lists.find((l) => l.type === 'SMART' && l.amountOfCompanies > 500)
const company = data.companies.find(
  (c) =>
    data.contactsOf(c).length >= 12 &&
    data.financialsOf(c).length >= 5 &&
    data.lookalikesOf(c).length > 0,
)
if (!staticBig || !smartBig || !company) {
  throw new Error('demo data lacks the lists or companies these tests need')
}
const companyPath = `/v1/companies/${company.country}/${company.companyNumber}`

// ─── Tests ───────────────────────────────────────────────────────────────────────────────────

describe('the document, as this test reads it', () => {
  it('has every resource and endpoint, with the fields and rules the tests below use', () => {
    expect([...resourceBodies.keys()]).toEqual([
      'pagination',
      'company identifier',
      'list',
      'list company item',
      'list contact item',
      'company contact item',
      'financial record',
      'lookalike item',
      'relationship item',
    ])
    expect(endpoints.map((e) => e.path)).toEqual([
      LISTS,
      LIST,
      LIST_COMPANIES,
      LIST_CONTACTS,
      FINANCIALS,
      LOOKALIKES,
      RELATIONSHIPS,
      CONTACTS,
    ])
    expect(resource('company identifier')).toEqual({
      kind: 'object',
      fields: {
        country: { kind: 'string' },
        companyNumber: { kind: 'string' },
        name: { kind: 'string' },
        place: { kind: 'string' },
      },
    })
    const record = resource('financial record')
    const solvency = record.kind === 'object' ? record.fields.solvency : undefined
    expect(solvency?.kind === 'object' && Object.keys(solvency.fields)).toHaveLength(11)
    expect(solvency?.kind === 'object' && solvency.fields.capital).toEqual({
      kind: 'nullable',
      of: { kind: 'number' },
    })
    expect(responseShape(LIST)).toEqual({ kind: 'object', fields: { data: expect.anything() } })
    expect(responseShape(LOOKALIKES)).toMatchObject({ fields: { data: { kind: 'array' } } })
    expect(MAX_LIMIT).toBe(500)
    expect(CONTACTS_DEFAULT_LIMIT).toBe(4)
  })
})

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
    expect(new Set(data.companies.map((c) => `${c.country}:${c.companyNumber}`)).size).toBe(
      data.companies.length,
    )
  })

  it('is deterministic, additions included', () => {
    const again = new DemoData()
    const indexes = (companies: readonly DemoCompany[]) => companies.map((c) => c.index)
    expect(again.companies.map((c) => c.name)).toEqual(data.companies.map((c) => c.name))
    expect(again.financialsOf(again.companies[7] as DemoCompany)).toEqual(
      data.financialsOf(data.companies[7] as DemoCompany),
    )
    expect(indexes(again.nameless)).toEqual(indexes(data.nameless))
    expect(indexes(again.placeless)).toEqual(indexes(data.placeless))
    expect(again.widelyHeld.index).toBe(data.widelyHeld.index)
    expect(again.relationshipsOf(again.widelyHeld)).toEqual(data.relationshipsOf(data.widelyHeld))
    const pairs = (d: DemoData) =>
      d.namesakes().map(({ company: c, contacts }) => [c.index, contacts.map((x) => x.contactId)])
    expect(pairs(again)).toEqual(pairs(data))
    const volatile = (d: DemoData) =>
      d.volatileContacts().map(({ contact }) => d.contactIdAt(contact, START))
    expect(volatile(again)).toEqual(volatile(data))
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
      expect(r.people.employeeMaleRatio + r.people.employeeFemaleRatio).toBeCloseTo(1, 6)
      expect(r.solvency.debt).toBeCloseTo(r.solvency.totalAssets - r.solvency.equity, 0)
      expect(r.startDate < r.endDate).toBe(true)
    }
    expect(records.some((r) => r.profitability.revenue === null)).toBe(true)
    expect(records.some((r) => r.profitability.netProfit < 0)).toBe(true)
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
        const back = data
          .relationshipsOf(demoCompany(parent.identifier))
          .children.filter((x) => x.identifier?.companyNumber === c.companyNumber)
        expect(back.map((x) => x.percentage)).toEqual([parent.percentage])
      }
    }
    expect(links).toBeGreaterThan(300)
    expect(anonymous).toBeGreaterThan(50)
  })
})

describe('Authentication: every request carries a bearer token', () => {
  const paths = [
    '/v1/lists',
    `/v1/lists/${staticBig.id}`,
    `/v1/lists/${staticBig.id}/companies`,
    `/v1/lists/${staticBig.id}/contacts`,
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
    `/v1/lists/${staticBig.id}/companies?`,
    `/v1/lists/${staticBig.id}/contacts?`,
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
    const { items } = await members(staticBig.id)
    const keys = items.map((m) => `${m.identifier.country}:${m.identifier.companyNumber}`)
    expect(new Set(keys).size).toBe(staticBig.amountOfCompanies)
    const middle = await read<Paged<Member>>(
      `/v1/lists/${staticBig.id}/companies?limit=4&offset=499`,
    )
    expect(middle.data.map((m) => `${m.identifier.country}:${m.identifier.companyNumber}`)).toEqual(
      keys.slice(499, 503),
    )
  })

  it('splits a SMART list into the SAVED, ARCHIVED and NEW views; ALL returns every company', async () => {
    const views = await Promise.all(
      ['ALL', 'SAVED', 'ARCHIVED', 'NEW'].map(
        async (view) => (await members(smartBig.id, view)).items,
      ),
    )
    const [all = [], saved = [], archived = [], fresh = []] = views
    const key = (m: Member) => m.identifier.companyNumber
    expect(saved.length).toBeGreaterThan(0)
    expect(archived.length).toBeGreaterThan(0)
    expect(fresh.length).toBe(smartBig.newResults)
    expect(new Set([...saved, ...archived, ...fresh].map(key))).toEqual(new Set(all.map(key)))
    expect(saved.length + archived.length + fresh.length).toBe(smartBig.amountOfCompanies)
    const { items: plain } = await members(smartBig.id)
    expect(plain).toEqual(all)
  })

  it('has no views for a STATIC list: every company whatever the type', async () => {
    const page = await read<Paged<Member>>(`/v1/lists/${staticBig.id}/companies?type=NEW&limit=1`)
    expect(page.pagination.total).toBe(staticBig.amountOfCompanies)
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

describe('1a: volatile contactIds', () => {
  const volatile = data.volatileContacts()
  const everyContact = data.companies.flatMap((c) => data.contactsOf(c))
  /** A volatile contact listed in a list's contacts, with the list and its place there. */
  const listed = required(
    data.lists
      .flatMap((list) => list.contacts.map((entry, index) => ({ list, index, ...entry })))
      .find(({ contact }) => contact.volatile),
    'a volatile contact in a list',
  )

  /** The contact as the company contacts and the list contacts answer it, now. */
  async function bothViews() {
    const [ofCompany, ofList] = await Promise.all([
      read<Paged<ContactItem>>(`${pathOf(listed.company, 'contacts')}?limit=500`),
      read<Paged<ListContactItem>>(`/v1/lists/${listed.list.id}/contacts?limit=500`),
    ])
    // Found by the attributes the document says to combine with contactId: names and title.
    const same = (c: ContactItem) =>
      c.identifier.lastName === listed.contact.lastName &&
      c.identifier.firstName ===
        (listed.contact.firstNameUnknown ? null : listed.contact.firstName) &&
      c.jobTitle === listed.contact.position.title.EN
    const inCompany = ofCompany.data.filter(same)
    expect(inCompany).toHaveLength(1)
    expect(ofList.data[listed.index]).toMatchObject({ jobTitle: listed.contact.position.title.EN })
    return {
      company: inCompany[0]?.identifier.contactId,
      list: ofList.data[listed.index]?.identifier.contactId,
      others: ofCompany.data.filter((c) => !same(c)).map((c) => c.identifier.contactId),
    }
  }

  it('makes about 1 in 25 contacts volatile', () => {
    const share = volatile.length / everyContact.length
    expect(share).toBeGreaterThan(1 / 35)
    expect(share).toBeLessThan(1 / 18)
  })

  it('gives a volatile contact a new integer id every day, never one another contact has then', () => {
    for (const time of [START, START + DAY, START + 400 * DAY]) {
      const ids = everyContact.map((c) => data.contactIdAt(c, time))
      expect(new Set(ids).size).toBe(ids.length)
      expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true)
    }
    for (const { contact } of volatile.slice(0, 50)) {
      expect(data.contactIdAt(contact, START + 2 * HOUR)).toBe(data.contactIdAt(contact, START))
      expect(data.contactIdAt(contact, START + DAY)).not.toBe(data.contactIdAt(contact, START))
    }
  })

  it('moves with the demo’s clock; company and list contacts agree at any one time', async () => {
    const before = await bothViews()
    expect(before.company).toBe(data.contactIdAt(listed.contact, START))
    expect(before.list).toBe(before.company)

    demo.advanceClock(2 * HOUR)
    expect(await bothViews()).toEqual(before)

    demo.advanceClock(DAY)
    const after = await bothViews()
    expect(after.company).toBe(data.contactIdAt(listed.contact, START + DAY + 2 * HOUR))
    expect(after.company).not.toBe(before.company)
    expect(after.list).toBe(after.company)
    // Only the volatile ones change.
    const stable = data
      .contactsOf(listed.company)
      .filter((c) => c !== listed.contact && !c.volatile)
      .map((c) => c.contactId)
    expect(after.others).toEqual(expect.arrayContaining(stable))
    expect(before.others).toEqual(expect.arrayContaining(stable))

    demo.reset()
    expect(demo.now()).toBe(START)
    expect(await bothViews()).toEqual(before)
  })

  it('reads Date.now unless told otherwise', () => {
    const plain = new DemoUpstream({ data })
    const before = Date.now()
    const now = plain.now()
    expect(now).toBeGreaterThanOrEqual(before)
    expect(now).toBeLessThanOrEqual(Date.now())
    plain.clockOffsetMs = DAY
    expect(plain.now()).toBeGreaterThanOrEqual(before + DAY)
  })
})

describe('1b: namesakes', () => {
  const namesakes = data.namesakes()

  it('has at least 3 companies with 6 or more contacts where two share a full name', () => {
    expect(namesakes.length).toBeGreaterThanOrEqual(3)
    for (const {
      company: c,
      contacts: [a, b],
    } of namesakes) {
      expect(data.contactsOf(c).length).toBeGreaterThanOrEqual(6)
      expect([b.firstName, b.lastName]).toEqual([a.firstName, a.lastName])
      expect(b.position.title.EN).not.toBe(a.position.title.EN)
    }
  })

  it('answers both, with different job titles and contactIds', async () => {
    for (const {
      company: c,
      contacts: [a],
    } of namesakes) {
      const body = await read<Paged<ContactItem>>(`${pathOf(c, 'contacts')}?limit=500`)
      const twins = body.data.filter(
        (x) => x.identifier.firstName === a.firstName && x.identifier.lastName === a.lastName,
      )
      expect(twins).toHaveLength(2)
      expect(new Set(twins.map((x) => x.jobTitle)).size).toBe(2)
      expect(new Set(twins.map((x) => x.identifier.contactId)).size).toBe(2)
      const search = await read<Paged<ContactItem>>(
        `${pathOf(c, 'contacts')}?q=${encodeURIComponent(`${a.firstName} ${a.lastName}`)}&limit=500`,
      )
      expect(search.data).toEqual(twins)
    }
  })
})

describe('1c: a company with 60+ shareholders', () => {
  const held = data.widelyHeld

  it('is no head of any list, but a member further down one', () => {
    for (const list of data.lists) {
      expect(list.members.slice(0, 60).map((m) => m.company)).not.toContain(held)
    }
    expect(data.lists.some((l) => l.members.findIndex((m) => m.company === held) >= 60)).toBe(true)
  })

  it('is reachable as a list member, by its position', async () => {
    const list = data.lists.find((l) => l.members.some((m) => m.company === held))
    const position = list?.members.findIndex((m) => m.company === held) ?? -1
    const page = await read<Paged<Member>>(
      `/v1/lists/${list?.id}/companies?limit=1&offset=${position}`,
    )
    expect(page.data[0]?.identifier).toEqual(expectedIdentifier(held))
  })

  it('has 60–80 parents: companies and persons, every share from both sides', async () => {
    const body = await read<Relationships>(pathOf(held, 'relationships'))
    const { parents } = body.data
    expect(parents.length).toBeGreaterThanOrEqual(60)
    expect(parents.length).toBeLessThanOrEqual(80)
    const companies = parents.filter((p) => p.identifier !== null)
    const persons = parents.filter((p) => p.identifier === null)
    expect(companies.length).toBeGreaterThanOrEqual(10)
    expect(persons.length).toBeGreaterThanOrEqual(10)
    expect(
      persons.every((p) => typeof p.name === 'string' && typeof p.percentage === 'number'),
    ).toBe(true)
    const total = parents.reduce((sum, p) => sum + (p.percentage ?? 0), 0)
    expect(total).toBeGreaterThan(0.9)
    expect(total).toBeLessThanOrEqual(1.01)
    expect(problems(body, responseShape(RELATIONSHIPS))).toEqual([
      ...parents.flatMap((r, i) => relationshipGaps(r, `data.parents[${i}]`)),
      ...body.data.children.flatMap((r, i) => relationshipGaps(r, `data.children[${i}]`)),
    ])
    await Promise.all(
      companies.map(async (parent) => {
        if (!parent.identifier) return
        const other = await read<Relationships>(pathOf(parent.identifier, 'relationships'))
        const back = other.data.children.filter(
          (c) => c.identifier?.companyNumber === held.companyNumber,
        )
        expect(back).toEqual([
          {
            identifier: expectedIdentifier(held),
            function: 'SHAREHOLDER',
            percentage: parent.percentage,
            name: held.name,
          },
        ])
      }),
    )
  })
})

describe('1d: missing names, places and first names', () => {
  const { nameless, placeless } = data
  const withoutFirstName = data.contactsWithoutFirstName()
  const listContacts = data.lists.flatMap((list) =>
    list.contacts.map((entry, index) => ({ list, index, ...entry })),
  )

  it('has about 1 % of companies without name, a few without place, a few contacts without first name', () => {
    expect(nameless.length / data.companies.length).toBeGreaterThan(0.005)
    expect(nameless.length / data.companies.length).toBeLessThan(0.02)
    expect(nameless.every((c) => c.name === undefined)).toBe(true)
    expect(placeless.length).toBeGreaterThanOrEqual(3)
    expect(placeless.every((c) => c.place === null && c.name !== undefined)).toBe(true)
    expect(withoutFirstName.length).toBeGreaterThanOrEqual(3)
    expect(withoutFirstName.length).toBeLessThan(data.companies.length)
  })

  it('omits the name key from the identifier of every company response', async () => {
    for (const c of nameless.slice(0, 8)) {
      for (const resource of ['financials', 'lookalikes', 'relationships', 'contacts']) {
        const body = await read<{ identifier: Identifier }>(pathOf(c, resource))
        expect(Object.keys(body.identifier)).toEqual(['country', 'companyNumber', 'place'])
      }
    }
    const c = placeless[0]
    if (!c) throw new Error('no placeless company')
    const body = await read<{ identifier: Identifier }>(pathOf(c, 'financials'))
    expect(body.identifier).toEqual({
      country: c.country,
      companyNumber: c.companyNumber,
      name: c.name,
      place: null,
    })
  })

  it('omits it from list members and from the company of list contacts', async () => {
    const member = data.lists
      .flatMap((list) => list.members.map((m, index) => ({ list, index, company: m.company })))
      .find((m) => m.company.name === undefined)
    const contact = listContacts.find(({ company: c }) => c.name === undefined)
    if (!member || !contact) throw new Error('no nameless member or list contact company')
    const page = await read<Paged<Member>>(
      `/v1/lists/${member.list.id}/companies?limit=1&offset=${member.index}`,
    )
    expect(Object.keys(page.data[0]?.identifier ?? {})).toEqual([
      'country',
      'companyNumber',
      'place',
    ])
    const contacts = await read<Paged<ListContactItem>>(
      `/v1/lists/${contact.list.id}/contacts?limit=1&offset=${contact.index}`,
    )
    expect(contacts.data[0]?.company).toEqual(expectedIdentifier(contact.company))
    expect(Object.keys(contacts.data[0]?.company ?? {})).toEqual([
      'country',
      'companyNumber',
      'place',
    ])
  })

  it('omits it from relationship identifiers, on both sides, and the item has no name either', async () => {
    let seen = 0
    for (const c of nameless) {
      const { parents, children } = data.relationshipsOf(c)
      for (const related of [...parents, ...children]) {
        if (!related.identifier) continue
        const body = await read<Relationships>(pathOf(related.identifier, 'relationships'))
        const items = [...body.data.parents, ...body.data.children].filter(
          (r) => r.identifier?.companyNumber === c.companyNumber,
        )
        expect(items.length).toBeGreaterThan(0)
        for (const item of items) {
          expect(Object.keys(item)).toEqual(['identifier', 'function', 'percentage'])
          expect(item.identifier).toEqual(expectedIdentifier(c))
          seen++
        }
      }
    }
    expect(seen).toBeGreaterThan(0)
  })

  it('sends firstName null for a contact without one, in company and list contacts', async () => {
    const entry = listContacts.find(({ contact }) => contact.firstNameUnknown)
    if (!entry) throw new Error('no list contact without first name')
    const list = await read<Paged<ListContactItem>>(
      `/v1/lists/${entry.list.id}/contacts?limit=1&offset=${entry.index}`,
    )
    expect(list.data[0]?.identifier).toEqual({
      contactId: data.contactIdAt(entry.contact, START),
      firstName: null,
      lastName: entry.contact.lastName,
    })
    const ofCompany = await read<Paged<ContactItem>>(
      `${pathOf(entry.company, 'contacts')}?limit=500`,
    )
    expect(ofCompany.data.map((c) => c.identifier)).toContainEqual(list.data[0]?.identifier)
    // The search does not find them by the first name the upstream does not have.
    const q = encodeURIComponent(entry.contact.firstName)
    const search = await read<Paged<ContactItem>>(
      `${pathOf(entry.company, 'contacts')}?q=${q}&limit=500`,
    )
    expect(search.data.map((c) => c.identifier)).not.toContainEqual(list.data[0]?.identifier)
  })
})

describe('1e: hold and release, waitForCalls, the event log', () => {
  const lists = (calls: ReceivedCall[]) => calls.filter((c) => c.path === '/v1/lists')

  it('receives held requests at once and answers them only after release()', async () => {
    const held = demo.hold('/v1/lists')
    const pending = [get('/v1/lists'), get('/v1/lists?type=SMART'), get('/v1/lists?type=STATIC')]
    await demo.waitForCalls((calls) => lists(calls).length === 3)
    // Another path is answered meanwhile.
    expect((await get(`/v1/lists/${staticBig.id}`)).status).toBe(200)
    expect(lists(demo.calls()).map((c) => c.answeredSeq)).toEqual([undefined, undefined, undefined])

    held.release()
    expect((await Promise.all(pending)).map((a) => a.status)).toEqual([200, 200, 200])
    const calls = demo.calls()
    const heldCalls = lists(calls)
    const other = calls.find((c) => c.path !== '/v1/lists')
    // All three were received before any of them was answered, and after the other one was.
    const lastReceived = Math.max(...heldCalls.map((c) => c.seq))
    const firstAnswered = Math.min(...heldCalls.map((c) => c.answeredSeq ?? Number.NaN))
    expect(lastReceived).toBeLessThan(firstAnswered)
    expect(other?.answeredSeq).toBeLessThan(firstAnswered)
    expect(heldCalls.map((c) => c.status)).toEqual([200, 200, 200])
  })

  it('holds by regular expression, and reset() releases what is held', async () => {
    demo.hold(/\/financials$/)
    const pending = get(`${companyPath}/financials`)
    const unheld = await get(`${companyPath}/lookalikes`)
    expect(unheld.status).toBe(200)
    await demo.waitForCalls((calls) => calls.some((c) => c.path.endsWith('/financials')))
    demo.reset()
    expect((await pending).status).toBe(200)
  })

  it('waitForCalls resolves at once when the calls already satisfy it, and on answers too', async () => {
    await demo.waitForCalls((calls) => calls.length === 0)
    const held = demo.hold('/v1/lists')
    const pending = get('/v1/lists')
    await demo.waitForCalls((calls) => calls.length === 1)
    const answered = demo.waitForCalls((calls) => calls[0]?.answeredSeq !== undefined)
    held.release()
    await answered
    await pending
    await expect(
      demo.waitForCalls(() => {
        throw new Error('broken predicate')
      }),
    ).rejects.toThrow('broken predicate')
  })

  it('numbers receipts and answers on one counter', async () => {
    await Promise.all([get('/v1/lists'), get(`${companyPath}/lookalikes`), get('/v1/nothing')])
    const calls = demo.calls()
    const events = calls.flatMap((c) => [c.seq, c.answeredSeq ?? Number.NaN])
    expect(new Set(events).size).toBe(6)
    for (const c of calls) expect(c.answeredSeq).toBeGreaterThan(c.seq)
    expect(calls.map((c) => c.status).sort()).toEqual([200, 200, 404])
  })
})

describe('test hooks', () => {
  it('logs every call with path, query, token and language', async () => {
    await get(`${companyPath}/contacts?limit=2&q=x`, { 'accept-language': 'NL' })
    expect(demo.calls()).toEqual([
      {
        seq: expect.any(Number),
        at: expect.any(Number),
        answeredSeq: expect.any(Number),
        status: 200,
        method: 'GET',
        path: `${companyPath}/contacts`,
        query: { limit: '2', q: 'x' },
        token: DEMO_TOKEN,
        language: 'NL',
      },
    ])
  })

  it('injects status, Retry-After and malformed bodies per path, a given number of times', async () => {
    demo.inject({ path: '/v1/lists', status: 429, retryAfter: '3', times: 1 })
    const limited = await get('/v1/lists')
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '3'])
    expect((await get('/v1/lists')).status).toBe(200)

    demo.inject({ path: /\/financials$/, body: '{"data": [' })
    const broken = await fetch(`${demo.url}${companyPath}/financials`, {
      headers: { authorization: `Bearer ${DEMO_TOKEN}` },
    })
    expect(await broken.text()).toBe('{"data": [')
  })

  it('delays answers by latencyMs: received, not yet answered, then answered', async () => {
    // No wall-clock measure: timers run only after pending promise callbacks, so a delayed
    // answer cannot have been sent when waitForCalls sees the receipt; an undelayed one has been.
    demo.latencyMs = 5
    const slow = get('/v1/lists')
    await demo.waitForCalls((calls) => calls.length === 1)
    expect(demo.calls()[0]?.answeredSeq).toBeUndefined()
    expect((await slow).status).toBe(200)
    expect(demo.calls()[0]?.answeredSeq).toBeGreaterThan(demo.calls()[0]?.seq ?? Number.NaN)

    demo.reset()
    const fast = get('/v1/lists')
    await demo.waitForCalls((calls) => calls.length === 1)
    expect(demo.calls()[0]?.answeredSeq).toEqual(expect.any(Number))
    await fast
  })
})
