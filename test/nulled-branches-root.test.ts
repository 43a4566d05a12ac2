import { describe, expect, it } from 'vitest'
import { startStack } from './support/stack.js'

const stack = await startStack({ upstreamToken: 'demo-token' })
const plain = stack.replica({ compiledExecution: 'never' })
const { demo } = stack

/**
 * Hostile review of compiled execution: a failure whose null reaches the root while other fields
 * still read. graphql-jit keeps only the first error it is given when data becomes null; the
 * fields NulledBranches ended came first, and the answer was `{ data: null }` with no error.
 */
describe('a non-null root field fails while another is still reading', () => {
  it('answers with the error, as graphql-js does', async () => {
    const query = '{ a: lists(first: 1) { totalCount } b: lists(first: 50) { totalCount } }'
    const faults = () => {
      demo.reset()
      demo.inject({ path: /\/v1\/lists/, status: 404, times: 1 })
      demo.inject({ path: /\/v1\/lists/, delayMs: 300 })
    }
    // Once without faults, so that it runs compiled next.
    await stack.post(query)
    // The graphql-js gateway too, so that both have learnt what they learn from a first read.
    await plain.post(query)
    faults()
    const compiled = await stack.post(query)
    const compiledCalls = demo.calls().map((c) => [c.path, c.query, c.status])
    faults()
    const reference = await plain.post(query)
    const referenceCalls = demo.calls().map((c) => [c.path, c.query, c.status])
    expect(compiledCalls).toEqual(referenceCalls)
    expect(reference.body.data).toBeNull()
    expect(reference.body.errors?.length).toBe(1)
    expect(compiled).toEqual(reference)
  })

  it("a list of lists: one list's companies fail while another's are read", async () => {
    const query = '{ lists(first: 3) { nodes { name companies(first: 1) { totalCount } } } }'
    const faults = () => {
      demo.reset()
      demo.inject({ path: /\/v1\/lists\/[^/]+\/companies/, status: 404, times: 1 })
      demo.inject({ path: /\/v1\/lists\/[^/]+\/companies/, delayMs: 300 })
    }
    await stack.post(query)
    await plain.post(query)
    faults()
    const compiled = await stack.post(query)
    faults()
    const reference = await plain.post(query)
    expect(reference.body.errors?.length).toBe(1)
    expect(compiled).toEqual(reference)
  })
})
