import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { bigList, companyArgs, michiels } from '../support/fixtures.js'
import { startStack } from '../support/stack.js'

/**
 * Contact IDs are unique among a company's contacts and the same on every page and filter, even
 * where people agree on name and job title (contract/runtime.md): contact lists made at random,
 * with many namesakes, answered by the demo upstream in place of a company's own contacts. Each
 * generated person stands in for one demo contact, so the demo's filters keep choosing among
 * them; renumbering keeps their order.
 */

const stack = await startStack()
const { demo } = stack
const company = michiels
const own = demo.data.contactsOf(company)
const CONTACTS = new RegExp(`/${company.country}/${company.companyNumber}/contacts$`)
const FILTERS = [
  'seniorities: ["C_LEVEL", "VP", "MANAGER"]',
  'onlyOfficialRoles: true',
  'departments: ["SALES", "FINANCE", "GENERAL_MANAGEMENT"]',
]

interface Person {
  firstName: string | null
  lastName: string | null
  jobTitle: string | null
}
/** Few names and titles: most lists hold people who agree on both. */
const person = fc.record({
  firstName: fc.constantFrom('Elise', 'Jan', null),
  lastName: fc.constantFrom('Martin', 'Peeters'),
  jobTitle: fc.constantFrom('Sales representative', 'CEO', null),
})
const people: fc.Arbitrary<Person[]> = fc.array(person, {
  minLength: own.length,
  maxLength: own.length,
})
/** Distinct contactIds, one per demo contact. */
const contactIds = fc.uniqueArray(fc.integer({ min: 1, max: 9_000_000 }), {
  minLength: own.length,
  maxLength: own.length,
})

/** The demo answers `generated` for the company's contacts: each in the place of one of its own. */
function answerWith(generated: Person[], ids: number[]) {
  const byDemoId = new Map(own.map((c, i) => [demo.data.contactIdAt(c, demo.now()), i]))
  demo.reset()
  demo.inject({
    path: CONTACTS,
    transform: (json) => {
      const body = json as {
        data: { jobTitle: string | null; identifier: Record<string, unknown> }[]
      }
      for (const item of body.data) {
        const i = byDemoId.get(item.identifier.contactId as number) as number
        const { jobTitle, ...name } = generated[i] as Person
        item.jobTitle = jobTitle
        item.identifier = { ...name, contactId: ids[i] }
      }
      return body
    },
  })
}

/** Each contact's ID by contactId, from one contacts field (its arguments given). */
async function idsOf(args: string): Promise<Map<number, string>> {
  const { body } = await stack.post(
    `{ company(${companyArgs(company)}) { contacts(${args}) { nodes { id contactId } } } }`,
  )
  expect(body.errors).toBeUndefined()
  const nodes = (
    body.data as { company: { contacts: { nodes: { id: string; contactId: number }[] } } }
  ).company.contacts.nodes
  return new Map(nodes.map((n) => [n.contactId, n.id]))
}

describe('Contact IDs with namesakes', () => {
  test.prop([people, contactIds], {
    numRuns: Number(process.env.FC_RUNS ?? 25),
    seed: Number(process.env.FC_SEED ?? 20261128),
    // Two people of one name and job title, as the issue found them (contactIds 17681, 17682).
    examples: [
      [
        own.map((_, i) => ({
          firstName: i < 2 ? 'Elise' : `P${i}`,
          lastName: 'Martin',
          jobTitle: 'Sales representative',
        })),
        own.map((_, i) => 17_681 + i),
      ],
    ],
  })(
    'are unique, the same on every page and filter, unchanged by a renumbering, and found by node()',
    async (generated, ids) => {
      answerWith(generated, ids)
      const all = await idsOf('first: 500')
      expect(all.size).toBe(own.length)
      expect(new Set(all.values()).size).toBe(own.length)
      // Page by page: the same IDs.
      const paged = new Map([...(await idsOf('first: 4')), ...(await idsOf('last: 4'))])
      for (const [contactId, id] of paged) expect(id).toBe(all.get(contactId))
      // Filtered (the demo's own seniorities, roles and departments choose): the same IDs.
      for (const filter of FILTERS) {
        for (const [contactId, id] of await idsOf(`first: 500, ${filter}`)) {
          expect(id).toBe(all.get(contactId))
        }
      }
      // node() finds each person: the one with that contactId.
      const { body } = await stack.post(
        'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Contact { id contactId } } }',
        { ids: [...all.values()] },
      )
      expect(body.errors).toBeUndefined()
      expect((body.data as { nodes: unknown[] }).nodes).toEqual(
        [...all].map(([contactId, id]) => ({ id, contactId })),
      )
      // The upstream renumbers everyone, keeping their order: every ID stays.
      answerWith(
        generated,
        ids.map((id) => id + 1_000_000),
      )
      const renumbered = await idsOf('first: 500')
      expect([...renumbered.values()]).toEqual([...all.values()])
    },
  )
})

describe('Contact IDs without their ranking read', () => {
  it('a list contact whose company’s contacts read fails keeps a unique ID, and node() finds that person', async () => {
    const failing = bigList.contacts[0]?.company
    if (!failing) throw new Error('no list contact')
    demo.reset()
    demo.inject({
      path: `/v1/companies/${failing.country}/${failing.companyNumber}/contacts`,
      status: 500,
    })
    const { body } = await stack.post(
      `{ list(listId: ${bigList.id}) { contacts(first: 20) { nodes { id contactId } } } }`,
    )
    expect(body.errors).toBeUndefined()
    const nodes = (
      body.data as { list: { contacts: { nodes: { id: string; contactId: number }[] } } }
    ).list.contacts.nodes
    expect(new Set(nodes.map((n) => n.id)).size).toBe(nodes.length)
    demo.reset()
    const found = await stack.post(
      'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Contact { contactId } } }',
      { ids: nodes.map((n) => n.id) },
    )
    expect(found.body.errors).toBeUndefined()
    expect((found.body.data as { nodes: unknown[] }).nodes).toEqual(
      nodes.map((n) => ({ contactId: n.contactId })),
    )
  })
})
