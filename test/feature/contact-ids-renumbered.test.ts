import { expect, it } from 'vitest'
import { paged, scriptedStack } from '../support/scripted-upstream.js'

/**
 * Issue 27: "IDs are unique … unchanged when the upstream renumbers contacts": two
 * people of one company with the same name and job title (the "Elise Martin, sales
 * representative"). The upstream renumbers its contacts (contract: "contactId values can change,
 * rarely"), keeping their order. With the cache at its default TTL, a filtered contacts field now
 * gives both people the same ID in one response, and the unfiltered field beside it gives one of
 * them that ID too: Relay merges the two people into one record.
 */

const s = await scriptedStack({ cacheTtlSeconds: 300 })
const company = {
  country: 'BE',
  companyNumber: '0922178703',
  name: 'Brasserie Claes SA',
  place: 'Gent',
}
const person = (contactId: number, firstName: string, lastName: string, jobTitle: string) => ({
  jobTitle,
  identifier: { contactId, firstName, lastName },
})
let base = 1000
const contacts = () => [
  person(base + 1, 'Elise', 'Martin', 'Sales representative'),
  person(base + 2, 'Elise', 'Martin', 'Sales representative'),
  person(base + 3, 'Jan', 'Peeters', 'CEO'),
]
s.setRoute((url) => {
  if (url.pathname !== '/v1/companies/BE/0922178703/contacts') return undefined
  const q = url.searchParams.get('q')?.toLowerCase()
  const items = q
    ? contacts().filter((p) =>
        `${p.identifier.firstName} ${p.identifier.lastName} ${p.jobTitle}`
          .toLowerCase()
          .includes(q),
      )
    : contacts()
  return paged(url, items, company)
})

type Ids = { nodes: { id: string; contactId: number }[] }
const ids = (connection: Ids) => connection.nodes.map((n) => n.id)

it('two identical people keep two IDs after the upstream renumbers them', async () => {
  const page = `{ company(country: BE, number: "0922178703") { contacts { nodes { id contactId } } } }`
  const before = await s.post(page)
  const beforeIds = ids(before.body.data.company.contacts)
  expect(new Set(beforeIds).size).toBe(3)

  base = 5000 // the upstream renumbers its contacts, order kept

  const both = await s.post(
    `{ company(country: BE, number: "0922178703") { all: contacts { nodes { id contactId } } martins: contacts(q: "martin") { nodes { id contactId } } } }`,
  )
  const martins = ids(both.body.data.company.martins)
  // Before the fix: both Martins get the same ID (the first one's), e.g. [X, X].
  expect(new Set(martins).size).toBe(2)
  // The same person has the same ID in both fields of one response.
  expect(martins).toEqual(ids(both.body.data.company.all).slice(0, 2))
  // And the IDs are those from before the renumbering.
  expect(martins).toEqual(beforeIds.slice(0, 2))
})
