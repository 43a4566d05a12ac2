import { print } from 'graphql'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { DemoData } from '../src/demo-upstream/data.js'
import { createGateway } from '../src/yoga.js'
import type { TraversalQuery } from './gql/graphql.js'
import { graphql } from './gql/index.js'
import { startDemoThread } from './support/demo-thread.js'

/**
 * The walk frontends make in one query, list → companies → financials / lookalikes → related
 * companies, checked against the demo upstream's call log: no duplicate call, no call for a name
 * already carried, every independent call in parallel.
 */

// The demo upstream runs on its own thread, as a real upstream runs elsewhere; the same data set
// is generated here to work out what users should see.
const demo = await startDemoThread()
const data = new DemoData()
const gateway = createGateway({
  ...loadConfig({}),
  upstreamUrl: demo.url,
  upstreamToken: 'demo-token',
  // Enough connections that no call waits in the pool's queue: this measures the gateway's
  // batching, not the UPSTREAM_MAX_CONNECTIONS cap (bench/ measures the default too).
  upstreamMaxConnections: 512,
})
beforeEach(() => demo.reset())
afterAll(async () => {
  await gateway.close()
  await demo.stop()
})
const big = data.lists.find((l) => l.type === 'STATIC' && l.amountOfCompanies > 500)
if (!big) throw new Error('demo data has no large STATIC list')

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
    calls.add(`${path(member, 'financials')}?limit=1&offset=0`)
    calls.add(path(member, 'lookalikes'))
    calls.add(path(member, 'relationships'))
    for (const { company } of data.lookalikesOf(member).slice(0, 3)) {
      calls.add(`${path(company, 'financials')}?limit=1&offset=0`)
    }
  }
  return [...calls].sort()
}

async function traverse(listId: number, companies: number) {
  const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: print(Traversal), variables: { listId, companies } }),
  })
  return (await response.json()) as { data?: TraversalQuery; errors?: unknown[] }
}

const made = async () =>
  (await demo.calls())
    .map((c) => {
      const query = new URLSearchParams(c.query).toString()
      return query ? `${c.path}?${query}` : c.path
    })
    .sort()

describe('list → 40 companies → financials + lookalikes(3) { name financials } + shareholders { company { name } }', () => {
  it('makes each distinct upstream read exactly once and none for names already carried', async () => {
    const result = await traverse(big.id, 40)
    expect(result.errors).toBeUndefined()
    const edges = result.data?.list?.companies.edges ?? []
    expect(edges).toHaveLength(40)

    // What users see is the data set.
    edges.forEach((edge, i) => {
      const member = big.members[i]
      if (!member) throw new Error('missing member')
      expect(edge.node.name).toBe(member.company.name)
      expect(edge.matchedSince).toBe(member.matchedSince)
      const alikes = data.lookalikesOf(member.company).slice(0, 3)
      expect(edge.node.lookalikes.edges.map((e) => [e.node.name, e.score])).toEqual(
        alikes.map((a) => [a.company.name, a.score]),
      )
      const parents = data.relationshipsOf(member.company).parents
      expect(edge.node.shareholders.map((s) => s.company?.name ?? null)).toEqual(
        parents.map((p) => p.identifier?.name ?? null),
      )
    })

    const calls = await made()
    expect(new Set(calls).size).toBe(calls.length)
    expect(calls).toEqual(expectedCalls(big.id, 40))
    console.log(
      `traversal: ${calls.length} upstream calls, ${expectedCalls(big.id, 40).length} distinct reads needed`,
    )
  })

  it('takes about (dependent levels) × (upstream latency), not (calls) × latency', async () => {
    // Levels: list details → its companies → their financials, lookalikes and relationships →
    // the lookalikes' financials (which also carry their names).
    const levels = 4
    const latency = 50
    for (let i = 0; i < 3; i++) await traverse(big.id, 40) // warm up (JIT, connections)
    await demo.setLatency(latency)
    // The best of three runs: what the gateway can do, not what a busy CI core did once.
    const timings: number[] = []
    for (let i = 0; i < 3; i++) {
      await demo.reset()
      await demo.setLatency(latency)
      const started = performance.now()
      const result = await traverse(big.id, 40)
      timings.push(performance.now() - started)
      expect(result.errors).toBeUndefined()
    }
    const elapsed = Math.min(...timings)
    const calls = (await demo.calls()).length
    console.log(
      `traversal with ${latency} ms upstream latency: ${timings.map((t) => t.toFixed(0)).join(', ')} ms for ${calls} calls (limit ${1.5 * levels * latency} ms)`,
    )
    expect(elapsed).toBeLessThan(1.5 * levels * latency)
  })
})
