import { describe, expect, it } from 'vitest'
import { startStack } from './support/stack.js'

/**
 * Hostile review of src/nulled-branches.ts. Under node(id), one response key answered by fields
 * of different types (`k` is List.companies in one fragment, Company.contacts in the other) makes
 * nullablePlaces look the deeper keys up on the first fragment's types: Contact's `c: company`
 * is not found there, the walk stops, and everything below counts as non-null. A failed
 * statement of one shareholder (whose null lands on that shareholder's nullable `company`) is
 * then noted as nulling the whole node: every later read under node is refused with the hidden
 * INSIDE_NULLED_BRANCH error, so fields that nothing nulled come back null with no error.
 */

const stack = await startStack({ upstreamToken: 'demo-token' })
const plain = stack.replica({ compiledExecution: 'never' })
const { demo } = stack
const { data } = demo
type DemoCompany = (typeof data.companies)[number]
/** A company with contacts, shareholders and two first peers that each pass `peer`. */
const withPeers = (peer: (company: DemoCompany) => boolean) =>
  data.companies.find(
    (c) =>
      data.contactsOf(c).length > 0 &&
      data.relationshipsOf(c).parents.some((p) => p.identifier) &&
      data.lookalikesOf(c).length >= 2 &&
      data
        .lookalikesOf(c)
        .slice(0, 2)
        .every((l) => peer(l.company)),
  )
const found = withPeers((peer) => typeof peer.name === 'string')
if (!found) throw new Error('demo data lacks a company with contacts, shareholders and peers')
const company = found
const id = Buffer.from(`Company:${company.country}:${company.companyNumber}`).toString('base64url')
const peers = data
  .lookalikesOf(company)
  .slice(0, 2)
  .map((l) => ({ name: l.company.name }))

const query = `{ node(id: "${id}") {
  ... on List { k: companies(first: 1) { n: nodes { number } } }
  ... on Company {
    k: contacts(first: 1) { n: nodes { c: company { s: shareholders { company { financials(first: 1) { totalCount } } } } } }
    late: lookalikes(first: 2) { nodes { name } }
  }
} }`

async function run(gateway: Pick<typeof stack, 'post'>, document = query) {
  await gateway.post(document) // the second time runs compiled on the gateway
  demo.reset()
  // Every shareholder's statements fail (their null lands on that shareholder's company); the
  // peers come later.
  for (const parent of data.relationshipsOf(company).parents) {
    const at = parent.identifier
    if (at)
      demo.inject({
        path: `/v1/companies/${at.country}/${at.companyNumber}/financials`,
        status: 404,
      })
  }
  demo.inject({ path: /\/lookalikes$/, delayMs: 300 })
  return (await gateway.post(document)).body
}

describe('nulled branches: a failure deep under node()', () => {
  it.each([
    ['compiled', stack],
    ['graphql-js', plain],
  ] as const)('nulls only its nearest nullable parent (%s)', async (_name, gateway) => {
    const body = await run(gateway)
    const node = body.data?.node as { late?: { nodes: { name: string | null }[] } } | null
    expect(body.errors?.length).toBeGreaterThan(0)
    expect(body.errors?.every((e) => e.path?.at(-1) === 'financials')).toBe(true)
    // The peers' names are not below anything that failed.
    expect(node?.late?.nodes).toEqual(peers)
  })

  it('does not null the whole node, with no error of its own, for one shareholder', async () => {
    // The same, with the peers' statements asked too: their hidden INSIDE_NULLED_BRANCH errors
    // null the non-null chain up to node, which answers null; the one error shown points inside it.
    const deeper = query.replace(
      'nodes { name }',
      'nodes { name financials(first: 1) { totalCount } }',
    )
    const body = await run(stack, deeper)
    expect(body.errors?.every((e) => e.path?.at(-1) === 'financials')).toBe(true)
    expect(body.data?.node).not.toBeNull()
  })

  it('with no upstream fault at all: a refused argument deep down does not null the node', async () => {
    const peer = withPeers((p) => data.contactsOf(p).length > 0)
    if (!peer) throw new Error('demo data lacks such a company')
    const peerId = Buffer.from(`Company:${peer.country}:${peer.companyNumber}`).toString(
      'base64url',
    )
    const refused = (withList: boolean) => `{ node(id: "${peerId}") {
      ${withList ? '... on List { k: companies(first: 1) { n: nodes { number } } }' : ''}
      ... on Company {
        k: contacts(first: 1) { n: nodes { c: company { s: shareholders { company { financials(first: -1) { totalCount } } } } } }
        late: lookalikes(first: 2) { nodes { contacts(first: 1) { nodes { company { lookalikes(first: 1) { nodes { name } } } } } } }
      }
    } }`
    const answer = async (withList: boolean) => {
      await stack.post(refused(withList))
      return (await stack.post(refused(withList))).body
    }
    // Without the List fragment (which cannot apply to a company) the node is answered.
    const control = await answer(false)
    expect(control.data?.node).not.toBeNull()
    const body = await answer(true)
    expect(body.errors).toEqual(control.errors)
    expect(body.data).toEqual(control.data)
  })
})
