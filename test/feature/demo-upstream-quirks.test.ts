import { describe, expect, it } from 'vitest'
import {
  type ContactItem,
  DAY,
  demoOverHttp,
  expectedIdentifier,
  HOUR,
  type Identifier,
  type ListContactItem,
  type Member,
  type Paged,
  pathOf,
  type Relationships,
  relationshipGaps,
  required,
  START,
} from '../support/demo-answers.js'
import { problems, RELATIONSHIPS, responseShape } from '../support/upstream-contract.js'

/**
 * The demo data set's difficulties (1a–1d) as the demo upstream answers them over HTTP: volatile
 * contactIds that follow the demo's clock, namesakes, a widely held company, and missing names,
 * places and first names, each exactly where the document allows it.
 */

const { demo, read } = demoOverHttp()
const { data } = demo

describe('1a: volatile contactIds', () => {
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
})

describe('1b: namesakes', () => {
  const namesakes = data.namesakes()

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
  const listContacts = data.lists.flatMap((list) =>
    list.contacts.map((entry, index) => ({ list, index, ...entry })),
  )

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
