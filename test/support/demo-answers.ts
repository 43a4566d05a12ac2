import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import type { DemoCompany, DemoContact } from '../../src/demo-upstream/data.js'
import { DEMO_TOKEN, DemoUpstream } from '../../src/demo-upstream/server.js'
import { demoData, michiels } from './fixtures.js'

/**
 * The demo upstream as its own tests call it: plain HTTP with the demo token, the answers typed
 * as far as the tests read them (their shapes are checked against the document apart, with
 * upstream-contract.ts), and the differences from the document the demo makes on purpose.
 */

/** The demo's clock stands still unless a test moves it; volatile contactIds follow it. */
export const START = Date.parse('2026-11-21T12:00:00.000Z')
export const HOUR = 3_600_000
export const DAY = 24 * HOUR

/**
 * A demo upstream on loopback for a test file, its clock at START: started before, reset after
 * each test, stopped after all of them.
 */
export function demoOverHttp() {
  const demo = new DemoUpstream({ data: demoData, now: () => START })
  beforeAll(() => demo.start())
  afterEach(() => demo.reset())
  afterAll(() => demo.stop())

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

  return { demo, get, read }
}

export interface Answer {
  status: number
  headers: Headers
  body: unknown
}

/** What the test reads of the answers: shapes are checked against the document separately. */
export interface Identifier {
  country: string
  companyNumber: string
  name?: string
  place: string | null
}
export interface Pagination {
  limit: number
  offset: number
  total: number
}
export interface Paged<T> {
  data: T[]
  pagination: Pagination
}
export interface ListBody {
  id: number
  type: string
  notifications: { enabled: boolean }
  amountOfCompanies: number
  newResults: number | null
  updatedAt: string
  createdAt: string
  createdBy: string
}
export interface Member {
  identifier: Identifier
  matchedSince: string
}
export interface ContactItem {
  jobTitle: string
  identifier: { contactId: number; firstName: string | null; lastName: string }
}
export interface ListContactItem extends ContactItem {
  company: Identifier
}
export interface FinancialItem {
  startDate: string
  endDate: string
  dateReceived: string | null
  people: { employeeMaleRatio: number; employeeFemaleRatio: number }
}
export interface Relationship {
  identifier: Identifier | null
  function?: string
  percentage?: number
  name?: string
}
export interface Relationships {
  identifier: Identifier
  data: { parents: Relationship[]; children: Relationship[] }
}
export interface Lookalikes {
  identifier: Identifier
  data: { companyId: { country: string; companyNumber: string }; score: number }[]
}

export const pathOf = (c: { country: string; companyNumber: string }, resource: string) =>
  `/v1/companies/${c.country}/${c.companyNumber}/${resource}`

export function demoCompany(identifier: { country: string; companyNumber: string }): DemoCompany {
  const company = demoData.company(identifier.country, identifier.companyNumber)
  if (!company)
    throw new Error(`${identifier.country}:${identifier.companyNumber} is no demo company`)
  return company
}

/** The identifier the document describes for a company of the data set (1d: name omitted). */
export function expectedIdentifier(company: DemoCompany): Identifier {
  return {
    country: company.country,
    companyNumber: company.companyNumber,
    ...(company.name === undefined ? {} : { name: company.name }),
    place: company.place,
  }
}

/** The differences from the document the demo makes on purpose in a company identifier (1d). */
export function identifierGaps(company: DemoCompany, path: string): string[] {
  return [
    ...(company.name === undefined ? [`${path}.name: missing`] : []),
    ...(company.place === null ? [`${path}.place: null, not string`] : []),
  ]
}

/** …and in a contact (1d): no first name. */
export function contactGaps(contact: DemoContact, path: string): string[] {
  return contact.firstNameUnknown ? [`${path}.identifier.firstName: null, not string`] : []
}

/** …and in a relationship item: its company's gaps, and no `name` for a nameless company. */
export function relationshipGaps(item: Relationship, path: string): string[] {
  if (item.identifier === null) return []
  const related = demoCompany(item.identifier)
  return [
    ...identifierGaps(related, `${path}.identifier`),
    ...(related.name === undefined ? [`${path}.name: missing`] : []),
  ]
}

export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`demo data lacks ${what}`)
  return value
}

export const ISO_MILLIS_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
export const DATE = /^\d{4}-\d\d-\d\d$/

/** The company whose resources the HTTP tests read (its every path). */
export const companyPath = `/v1/companies/${michiels.country}/${michiels.companyNumber}`
