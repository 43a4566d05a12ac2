import { describe, expect, it } from 'vitest'
import type { Fault } from '../src/demo-upstream/server.js'
import { startStack } from './support/stack.js'

/**
 * Hostile review of compiled execution: a root field fails, so data is null, while reads no
 * nulled field waits for are pending (the items of nodes(ids:), a list's details). graphql-js
 * answers at once and the operation's end drops them; graphql-jit waited for all of them (80
 * upstream calls for 20 IDs, where graphql-js made none). Compiled and graphql-js, the same
 * request and upstream faults; each request is sent once to each gateway first (so the compiled
 * one compiles it). Upstream calls are compared with their status (an abandoned call is one the
 * operation's end aborted).
 */
const stack = await startStack({ upstreamToken: 'demo-token' })
const plain = stack.replica({ compiledExecution: 'never' })
const { demo } = stack
const { data } = demo
const company = data.companies.find((c) => c.name !== undefined)
const list = data.lists.find((l) => l.amountOfCompanies >= 5)
if (!company || !list) throw new Error('demo data')
const gid = (type: string, key: string) => Buffer.from(`${type}:${key}`).toString('base64url')
const cid = gid('Company', `${company.country}:${company.companyNumber}`)
const lid = gid('List', String(list.id))

const calls = () =>
  demo
    .calls()
    .map((c) => `${c.path} ${c.status ?? ''}${c.abandoned ? 'abandoned' : ''}`)
    .sort()

async function both(query: string, faults: Fault[]) {
  await stack.post(query)
  await plain.post(query)
  const run = async (gw: Pick<typeof stack, 'post'>) => {
    demo.reset()
    for (const fault of faults) demo.inject(fault)
    const answer = await gw.post(query)
    // Let reads the operation left behind land (or be aborted) before counting.
    await new Promise((resolve) => setTimeout(resolve, 500))
    return { ...answer, calls: calls() }
  }
  return { compiled: await run(stack), reference: await run(plain) }
}

describe('data null while reads no field waits for are pending', () => {
  it('nodes(ids:) item still loading when a sibling root field fails synchronously', async () => {
    const query = `{ nodes(ids: ["${cid}"]) { ... on Company { name financials(first: 2) { totalCount } } } lists(first: -1) { totalCount } }`
    const { compiled, reference } = await both(query, [{ path: /./, delayMs: 300 }])
    expect(reference.body.data).toBeNull()
    expect(reference.calls).toEqual([])
    expect(compiled.calls).toEqual(reference.calls)
    expect(compiled.body).toEqual(reference.body)
  })

  it('20 IDs: no upstream call, as with graphql-js', async () => {
    const ids = data.companies
      .slice(0, 20)
      .map((c) => gid('Company', `${c.country}:${c.companyNumber}`))
    const query = `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Company { name financials(first: 1) { totalCount } contacts(first: 1) { totalCount } shareholders { name } lookalikes(first: 1) { totalCount } } } lists(first: -1) { totalCount } }`
    const run = async (gateway: Pick<typeof stack, 'post'>) => {
      demo.reset()
      demo.inject({ path: /./, delayMs: 200 })
      const { body } = await gateway.post(query, { ids })
      // Let reads the operation left behind land (or be aborted) before counting.
      await new Promise((resolve) => setTimeout(resolve, 500))
      return { body, calls: demo.calls().length }
    }
    await run(stack)
    await run(plain)
    const compiled = await run(stack)
    const reference = await run(plain)
    expect(reference.body.data).toBeNull()
    expect(reference.calls).toBe(0)
    expect(compiled.calls).toBe(reference.calls)
  })

  it('list(listId:) still loading when a sibling root field fails synchronously', async () => {
    const query = `{ list(listId: ${list.id}) { name } lists(first: -1) { totalCount } }`
    const { compiled, reference } = await both(query, [{ path: /./, delayMs: 300 }])
    expect(reference.calls).toEqual([])
    expect(compiled.calls).toEqual(reference.calls)
    expect(compiled.body).toEqual(reference.body)
  })

  it('nodes(ids:) list item still loading when a sibling root field fails upstream', async () => {
    const query = `{ nodes(ids: ["${lid}"]) { id } lists(first: 1) { totalCount } }`
    const { compiled, reference } = await both(query, [
      { path: `/v1/lists/${list.id}`, delayMs: 300 },
      { path: '/v1/lists', delayMs: 30, status: 400 },
    ])
    // graphql-js aborts the list's read when it answers; compiled waited for it (310 ms).
    expect(compiled.calls).toEqual(reference.calls)
    expect(compiled.body).toEqual(reference.body)
  })
})
