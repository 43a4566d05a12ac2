import { describe, expect, it } from 'vitest'
import { type DemoCompany, DemoData } from '../../src/demo-upstream/data.js'
import { DemoUpstream } from '../../src/demo-upstream/server.js'
import { normaliseCompanyNumber } from '../../src/domain/company-number.js'
import { DAY, demoCompany, HOUR, START } from '../support/demo-answers.js'
import { bigList, demoData, smartList } from '../support/fixtures.js'

/**
 * The demo data set every other test trusts: its size, validity and determinism, and the
 * difficulties it holds on purpose (1a–1d of contract/upstream-rest-api.md's demo section):
 * volatile contactIds, namesakes, a widely held company, missing names, places and first names.
 */

describe('data set', () => {
  it('has at least 2,000 companies in BE, NL and FR with valid, unique numbers', () => {
    expect(demoData.companies.length).toBeGreaterThanOrEqual(2000)
    for (const country of ['BE', 'NL', 'FR'] as const) {
      expect(demoData.companies.filter((c) => c.country === country).length).toBeGreaterThan(300)
    }
    for (const c of demoData.companies) {
      expect(normaliseCompanyNumber(c.country, c.companyNumber)).toEqual({
        ok: true,
        number: c.companyNumber,
      })
    }
    expect(new Set(demoData.companies.map((c) => `${c.country}:${c.companyNumber}`)).size).toBe(
      demoData.companies.length,
    )
  })

  it('is deterministic, additions included', () => {
    const again = new DemoData()
    const indexes = (companies: readonly DemoCompany[]) => companies.map((c) => c.index)
    expect(again.companies.map((c) => c.name)).toEqual(demoData.companies.map((c) => c.name))
    expect(again.financialsOf(again.companies[7] as DemoCompany)).toEqual(
      demoData.financialsOf(demoData.companies[7] as DemoCompany),
    )
    expect(indexes(again.nameless)).toEqual(indexes(demoData.nameless))
    expect(indexes(again.placeless)).toEqual(indexes(demoData.placeless))
    expect(again.widelyHeld.index).toBe(demoData.widelyHeld.index)
    expect(again.relationshipsOf(again.widelyHeld)).toEqual(
      demoData.relationshipsOf(demoData.widelyHeld),
    )
    const pairs = (d: DemoData) =>
      d.namesakes().map(({ company: c, contacts }) => [c.index, contacts.map((x) => x.contactId)])
    expect(pairs(again)).toEqual(pairs(demoData))
    const volatile = (d: DemoData) =>
      d.volatileContacts().map(({ contact }) => d.contactIdAt(contact, START))
    expect(volatile(again)).toEqual(volatile(demoData))
  })

  it('has at least 8 lists of both kinds, one STATIC and one SMART with more than 500 members', () => {
    expect(demoData.lists.length).toBeGreaterThanOrEqual(8)
    expect(bigList.amountOfCompanies).toBeGreaterThan(500)
    expect(smartList.amountOfCompanies).toBeGreaterThan(500)
  })

  it('has consistent financial statements: 0 to 10 years, gender ratios adding up to 1, some nulls and losses', () => {
    const all = demoData.companies.slice(0, 400).map((c) => demoData.financialsOf(c))
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
    for (const c of demoData.companies) {
      for (const parent of demoData.relationshipsOf(c).parents) {
        if (parent.identifier === null) {
          anonymous++
          continue
        }
        links++
        const back = demoData
          .relationshipsOf(demoCompany(parent.identifier))
          .children.filter((x) => x.identifier?.companyNumber === c.companyNumber)
        expect(back.map((x) => x.percentage)).toEqual([parent.percentage])
      }
    }
    expect(links).toBeGreaterThan(300)
    expect(anonymous).toBeGreaterThan(50)
  })
})

describe('1a: volatile contactIds', () => {
  const volatile = demoData.volatileContacts()
  const everyContact = demoData.companies.flatMap((c) => demoData.contactsOf(c))
  it('makes about 1 in 25 contacts volatile', () => {
    const share = volatile.length / everyContact.length
    expect(share).toBeGreaterThan(1 / 35)
    expect(share).toBeLessThan(1 / 18)
  })

  it('gives a volatile contact a new integer id every day, never one another contact has then', () => {
    for (const time of [START, START + DAY, START + 400 * DAY]) {
      const ids = everyContact.map((c) => demoData.contactIdAt(c, time))
      expect(new Set(ids).size).toBe(ids.length)
      expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true)
    }
    for (const { contact } of volatile.slice(0, 50)) {
      expect(demoData.contactIdAt(contact, START + 2 * HOUR)).toBe(
        demoData.contactIdAt(contact, START),
      )
      expect(demoData.contactIdAt(contact, START + DAY)).not.toBe(
        demoData.contactIdAt(contact, START),
      )
    }
  })

  it('reads Date.now unless told otherwise', () => {
    const plain = new DemoUpstream({ data: demoData })
    const before = Date.now()
    const now = plain.now()
    expect(now).toBeGreaterThanOrEqual(before)
    expect(now).toBeLessThanOrEqual(Date.now())
    plain.clockOffsetMs = DAY
    expect(plain.now()).toBeGreaterThanOrEqual(before + DAY)
  })
})

describe('1b: namesakes', () => {
  const namesakes = demoData.namesakes()

  it('has at least 3 companies with 6 or more contacts where two share a full name', () => {
    expect(namesakes.length).toBeGreaterThanOrEqual(3)
    for (const {
      company: c,
      contacts: [a, b],
    } of namesakes) {
      expect(demoData.contactsOf(c).length).toBeGreaterThanOrEqual(6)
      expect([b.firstName, b.lastName]).toEqual([a.firstName, a.lastName])
      expect(b.position.title.EN).not.toBe(a.position.title.EN)
    }
  })
})

describe('1c: a company with 60+ shareholders', () => {
  const held = demoData.widelyHeld

  it('is no head of any list, but a member further down one', () => {
    for (const list of demoData.lists) {
      expect(list.members.slice(0, 60).map((m) => m.company)).not.toContain(held)
    }
    expect(demoData.lists.some((l) => l.members.findIndex((m) => m.company === held) >= 60)).toBe(
      true,
    )
  })
})

describe('1d: missing names, places and first names', () => {
  const { nameless, placeless } = demoData
  const withoutFirstName = demoData.contactsWithoutFirstName()

  it('has about 1 % of companies without name, a few without place, a few contacts without first name', () => {
    expect(nameless.length / demoData.companies.length).toBeGreaterThan(0.005)
    expect(nameless.length / demoData.companies.length).toBeLessThan(0.02)
    expect(nameless.every((c) => c.name === undefined)).toBe(true)
    expect(placeless.length).toBeGreaterThanOrEqual(3)
    expect(placeless.every((c) => c.place === null && c.name !== undefined)).toBe(true)
    expect(withoutFirstName.length).toBeGreaterThanOrEqual(3)
    expect(withoutFirstName.length).toBeLessThan(demoData.companies.length)
  })
})
