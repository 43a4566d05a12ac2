import { type DemoCompany, DemoData, type DemoList } from '../../src/demo-upstream/data.js'
import { encodeGlobalId } from '../../src/schema/global-id.js'

/**
 * The demo data set and the companies and lists the tests name. The data comes from one seed, so
 * it is the same in every process (the demo upstream of a spawned gateway too); it is made once
 * per test worker and every stack's demo upstream serves this one instance (it never changes).
 * Each named fixture is checked here for what the tests rely on: a changed data set fails at
 * once, with the reason, instead of in some assertion far away.
 */
export const demoData = new DemoData()

type Claim<T> = [what: string, holds: (item: T) => boolean]

function verified<T>(item: T | undefined, name: string, claims: Claim<T>[]): T {
  if (item === undefined) throw new Error(`the demo data has no ${name}`)
  for (const [what, holds] of claims) {
    if (!holds(item)) throw new Error(`${name} in the demo data no longer has ${what}`)
  }
  return item
}

const company = (country: string, number: string, claims: Claim<DemoCompany>[]) =>
  verified(demoData.company(country, number), `company ${country} ${number}`, claims)
const list = (id: number, claims: Claim<DemoList>[]) =>
  verified(demoData.list(id), `list ${id}`, claims)

const statements = (c: DemoCompany) => demoData.financialsOf(c).length
const parents = (c: DemoCompany) => demoData.relationshipsOf(c).parents
const children = (c: DemoCompany) => demoData.relationshipsOf(c).children

/** Brasserie Claes SA (BE 0922178703): ten statements, and every other resource. */
export const claes = company('BE', '0922178703', [
  ['its name', (c) => c.name === 'Brasserie Claes SA'],
  ['ten statements', (c) => statements(c) === 10],
  ['at least three lookalikes', (c) => demoData.lookalikesOf(c).length >= 3],
  ['at least eight contacts', (c) => demoData.contactsOf(c).length >= 8],
  ['companies among its shareholders', (c) => parents(c).some((p) => p.identifier !== null)],
  ['a shareholder without identifier', (c) => parents(c).some((p) => p.identifier === null)],
])

/** Michiels Construct NV (BE 0735952757), the first company: many of every resource. */
export const michiels = company('BE', '0735952757', [
  ['a name', (c) => c.name !== undefined],
  ['at least five statements', (c) => statements(c) >= 5],
  ['at least 12 lookalikes', (c) => demoData.lookalikesOf(c).length >= 12],
  ['at least 15 contacts', (c) => demoData.contactsOf(c).length >= 15],
  ['at least two participations', (c) => children(c).length >= 2],
])

/** List 1001: STATIC, 1,234 members (more than two upstream pages), contacts too. */
export const bigList = list(1001, [
  ['type STATIC', (l) => l.type === 'STATIC'],
  ['more than 1,000 members', (l) => l.amountOfCompanies > 1000],
  ['contacts', (l) => l.contacts.length > 5],
])

/** List 1002: SMART, 814 members. */
export const smartList = list(1002, [
  ['type SMART', (l) => l.type === 'SMART'],
  ['more than 500 members', (l) => l.amountOfCompanies > 500],
])

/** A global ID as the gateway makes it (src/schema/global-id.ts), of any type name. */
export const globalId = (type: string, key: string | number) => encodeGlobalId(type, key)

/** The global ID of a company. */
export const companyId = (c: { country: string; companyNumber: string }) =>
  globalId('Company', `${c.country}:${c.companyNumber}`)

/** A company as `company(…)` arguments written in a query: `country: BE, number: "…"`. */
export const companyArgs = (c: { country: string; companyNumber: string }) =>
  `country: ${c.country}, number: "${c.companyNumber}"`

/** A company as the variables of a typed `company(country: $country, number: $number)`. */
export const companyVars = (c: DemoCompany) => ({ country: c.country, number: c.companyNumber })
