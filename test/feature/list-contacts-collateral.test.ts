import { describe, expect, it } from 'vitest'
import { bigList } from '../support/fixtures.js'
import { partsAsTheyArrive, reassemble } from '../support/incremental.js'
import { demoToken, startStack } from '../support/stack.js'

/**
 * Issue 27: "Partial answers lose nothing collateral, for every single fault": a list
 * contact's `id` takes its company's contacts read (to rank namesakes). When that one read fails,
 * the whole `List.contacts` connection is nulled (Contact.id is non-null, so the error climbs up
 * to the nullable connection): every other contact of the page is lost, although none of them
 * needed the failed read. A Relay page always selects `id`.
 */

const stack = await startStack()
const { demo } = stack
const failing = (bigList.contacts[0] ?? bigList.contacts.at(-1))?.company ?? {
  country: 'BE',
  companyNumber: '0464622179',
}
const query = `{ list(listId: ${bigList.id}) { name contacts(first: 5) { nodes { id firstName lastName company { number } } } } }`

type Node = { id: string; firstName: string; lastName: string; company: { number: string } }
const contactsOf = (data: unknown) =>
  (data as { list: { contacts: { nodes: (Node | null)[] } | null } }).list.contacts

describe.each([500, 404])('one company contacts read answering %i', (status) => {
  it('costs only the contacts that needed it, not the whole List.contacts', async () => {
    demo.reset()
    const clean = await stack.post(query)
    const cleanNodes = contactsOf(clean.body.data)?.nodes as Node[]
    const untouched = cleanNodes.filter((n) => n.company.number !== failing.companyNumber)
    expect(untouched.length).toBeGreaterThan(0)

    demo.reset()
    demo.inject({
      path: `/v1/companies/${failing.country}/${failing.companyNumber}/contacts`,
      status,
    })
    const { body } = await stack.post(query)
    const contacts = contactsOf(body.data)
    // Before the fix: data.list.contacts is null, with one error at list.contacts.nodes.0.id.
    expect(contacts).not.toBeNull()
    expect(
      contacts?.nodes.filter((n) => n !== null && n.company.number !== failing.companyNumber),
    ).toEqual(untouched)
  })
})

describe('the same fault, the same page split by @defer', () => {
  it('gives the same data as without @defer (contract: "split by @defer: the same data")', async () => {
    const fault = () => {
      demo.reset()
      demo.inject({
        path: `/v1/companies/${failing.country}/${failing.companyNumber}/contacts`,
        status: 500,
      })
    }
    fault()
    const plain = await stack.post(
      `{ list(listId: ${bigList.id}) { contacts(first: 3) { nodes { firstName id } } } }`,
    )
    fault()
    const response = await stack.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...demoToken },
      body: JSON.stringify({
        query: `{ list(listId: ${bigList.id}) { contacts(first: 3) { nodes { firstName ... @defer { id } } } } }`,
      }),
    })
    const parts = []
    for await (const part of partsAsTheyArrive(response)) parts.push(part)
    const split = reassemble(parts)
    // Before the fix: without @defer `contacts` is null; with it, the first part holds all three
    // contacts and only the first one's deferred `id` part fails (data: null at nodes.0).
    expect(split.data).toEqual(plain.body.data)
  })
})
