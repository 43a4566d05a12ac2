import { describe, expect, it } from 'vitest'
import { graphql } from '../gql/index.js'
import { bigList, smartList } from '../support/fixtures.js'
import { startStack } from '../support/stack.js'

/**
 * The walk frontends make in one query, list → companies → financials / lookalikes → related
 * companies, checked against the demo upstream's call log: no duplicate call, no call for a name
 * already carried, every independent call in the same round trip. (Its wall time is measured by
 * `npm run bench`.)
 */

const stack = await startStack({
  upstreamToken: 'demo-token',
  // Enough connections that no call waits for one: this checks the gateway's batching, not the
  // UPSTREAM_MAX_CONNECTIONS cap.
  upstreamMaxConnections: 512,
})
const { demo } = stack
const { data } = demo
const big = bigList

const Traversal = graphql(`
  query Traversal($listId: Int!, $companies: Int!) {
    list(listId: $listId) {
      name
      companies(first: $companies) {
        totalCount
        edges {
          matchedSince
          node {
            name
            financials(first: 1) { nodes { endDate profitability { revenue } } }
            lookalikes(first: 3) {
              edges { score node { name financials(first: 1) { nodes { endDate } } } }
            }
            shareholders { percentage company { name } }
          }
        }
      }
    }
  }
`)

/** The calls the traversal needs, worked out from the data set: each distinct read once. */
function expectedCalls(listId: number, count: number): string[] {
  const members = big?.members.slice(0, count).map((m) => m.company) ?? []
  const path = (c: { country: string; companyNumber: string }, resource: string) =>
    `/v1/companies/${c.country}/${c.companyNumber}/${resource}`
  const calls = new Set([
    `/v1/lists/${listId}`,
    `/v1/lists/${listId}/companies?limit=${count}&offset=0`,
  ])
  for (const member of members) {
    calls.add(`${path(member, 'financials')}?limit=500&offset=0`)
    calls.add(path(member, 'lookalikes'))
    calls.add(path(member, 'relationships'))
    for (const { company } of data.lookalikesOf(member).slice(0, 3)) {
      calls.add(`${path(company, 'financials')}?limit=500&offset=0`)
    }
  }
  return [...calls].sort()
}

const traverse = (listId: number, companies: number) =>
  stack.execute(Traversal, { listId, companies })

const made = () =>
  demo
    .calls()
    .map((c) => {
      const query = new URLSearchParams(c.query).toString()
      return query ? `${c.path}?${query}` : c.path
    })
    .sort()

describe('list → 40 companies → financials + lookalikes(3) { name financials } + shareholders { company { name } }', () => {
  it('makes each distinct upstream read exactly once and none for names already carried', async () => {
    const result = await traverse(big.id, 40)
    expect(result.errors).toBeUndefined()
    const edges = result.data?.list?.companies?.edges ?? []
    expect(edges).toHaveLength(40)

    // What users see is the data set.
    edges.forEach((edge, i) => {
      const member = big.members[i]
      if (!member) throw new Error('missing member')
      expect(edge.node.name).toBe(member.company.name)
      expect(edge.matchedSince).toBe(member.matchedSince)
      const alikes = data.lookalikesOf(member.company).slice(0, 3)
      expect(edge.node.lookalikes?.edges.map((e) => [e.node.name, e.score])).toEqual(
        alikes.map((a) => [a.company.name, a.score]),
      )
      const parents = data.relationshipsOf(member.company).parents
      expect(edge.node.shareholders?.map((s) => s.company?.name ?? null)).toEqual(
        parents.map((p) => p.identifier?.name ?? null),
      )
    })

    const calls = made()
    expect(new Set(calls).size).toBe(calls.length)
    expect(calls).toEqual(expectedCalls(big.id, 40))
    console.log(
      `traversal: ${calls.length} upstream calls, ${expectedCalls(big.id, 40).length} distinct reads needed`,
    )
  })

  /**
   * Holds each round of reads until every read it should hold has arrived: a read that waited
   * for another of its round would never arrive, and the test would time out.
   */
  async function expectRounds(run: () => Promise<{ errors?: unknown }>, rounds: number[]) {
    let held = demo.hold(/^\/v1\//)
    const result = run()
    let expected = 0
    for (const round of rounds) {
      expected += round
      await demo.waitForCalls((calls) => calls.length >= expected)
      expect(demo.calls()).toHaveLength(expected)
      const next = demo.hold(/^\/v1\//)
      held.release()
      held = next
    }
    held.release()
    expect((await result).errors).toBeUndefined()
    expect(demo.calls()).toHaveLength(expected)
  }

  const members = big.members.slice(0, 40).map((m) => m.company)
  // Lookalikes that are members themselves had their statements read with the members'.
  const alikes = new Set(
    members
      .flatMap((m) =>
        data
          .lookalikesOf(m)
          .slice(0, 3)
          .map((l) => l.company),
      )
      .filter((c) => !members.includes(c)),
  )
  const theirReads = members.length * 3 // their financials, lookalikes and relationships

  it('a list seen for the first time: four dependent round trips, each read with its round', async () => {
    // A new gateway has learned no list type yet.
    const fresh = stack.replica()
    await expectRounds(
      () => fresh.execute(Traversal, { listId: big.id, companies: 40 }),
      [
        1, // the list's details (its type decides the companies read's parameters)
        1, // its companies
        theirReads,
        alikes.size, // the lookalikes' financials, which also name them
      ],
    )
  })

  it('a list whose type the gateway has seen: its details and companies in one round, three in all', async () => {
    await stack.post(`{ list(listId: ${big.id}) { type } }`)
    demo.reset()
    await expectRounds(() => traverse(big.id, 40), [2, theirReads, alikes.size])
    expect(made().filter((call) => call.startsWith(`/v1/lists/${big.id}`))).toEqual([
      `/v1/lists/${big.id}`,
      `/v1/lists/${big.id}/companies?limit=40&offset=0`,
    ])
  })

  it('a read does not wait for the others of its round: one slow read holds back only what needs it', async () => {
    await stack.post(`{ list(listId: ${big.id}) { type } }`)
    demo.reset()
    const first = members[0]
    if (!first) throw new Error('no member')
    // The first member's relationships never come back until the end.
    const slow = demo.hold(`/v1/companies/${first.country}/${first.companyNumber}/relationships`)
    const result = traverse(big.id, 40)
    // Every lookalike's statements (the third round) are asked for meanwhile.
    const alikeStatements = (calls: { path: string; query: Record<string, string> }[]) =>
      calls.filter(
        (c) =>
          c.path.endsWith('/financials') &&
          [...alikes].some(
            (a) => c.path === `/v1/companies/${a.country}/${a.companyNumber}/financials`,
          ),
      )
    await demo.waitForCalls((calls) => alikeStatements(calls).length === alikes.size)
    slow.release()
    expect((await result).errors).toBeUndefined()
  })

  it("what one token learned of a list is not used for another token's reads", async () => {
    // Callers' own tokens go upstream (no UPSTREAM_TOKEN): each token is its own scope.
    const forwarding = stack.replica({ upstreamToken: undefined })
    const query = `{ list(listId: ${big.id}) { companies(first: 2) { nodes { name } } } }`
    await forwarding.post(`{ list(listId: ${big.id}) { type } }`)
    demo.reset()
    const other = await forwarding.post(query, undefined, { authorization: 'Bearer someone-else' })
    expect(other.body.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED'])
    // Only the details read: nothing was sent on what the first token learned.
    expect(made()).toEqual([`/v1/lists/${big.id}`])
    demo.reset()
    await expectRounds(() => forwarding.post(query).then((r) => r.body), [2])
  })

  it('a SMART list seen in the overview: its companies read with type=ALL beside its details', async () => {
    const smart = smartList
    await stack.post('{ lists(first: 500) { nodes { listId } } }')
    demo.reset()
    await expectRounds(
      () =>
        stack
          .post(`{ list(listId: ${smart.id}) { name companies(first: 5) { nodes { name } } } }`)
          .then((r) => r.body),
      [2],
    )
    expect(made()).toEqual([
      `/v1/lists/${smart.id}`,
      `/v1/lists/${smart.id}/companies?limit=5&offset=0&type=ALL`,
    ])
  })
})
