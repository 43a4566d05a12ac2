import { describe, expect, it } from 'vitest'
import { startStack } from './support/stack.js'

const stack = await startStack({ upstreamToken: 'demo-token' })
const plain = stack.replica({ compiledExecution: 'never' })
const { demo } = stack
const company = demo.data.companies.find((c) => demo.data.lookalikesOf(c).length >= 20)
if (!company) throw new Error('demo data')
const at = `country: ${company.country}, number: "${company.companyNumber}"`

/**
 * Hostile review of compiled execution: graphql-jit ran the selections of a skipped field merged
 * with an included one under the same response key (41 upstream calls for an estimate of 1).
 */
describe('a skipped field merged with an included one', () => {
  it('reads nothing for the skipped one, and no more than estimated', async () => {
    // The budget estimates the operation as graphql-js runs it: the skipped company is not there.
    const query = `{ company(${at}) @skip(if: true) { ...F } company(${at}) { number } }
      fragment F on Company { lookalikes(first: 20) { nodes { financials(first: 1) { totalCount } shareholders { name } participations { name } } } }`
    await stack.post(query)
    demo.reset()
    const compiled = await stack.post(query)
    const compiledCalls = demo.calls().length
    demo.reset()
    const reference = await plain.post(query)
    const referenceCalls = demo.calls().length
    expect(compiledCalls).toBe(referenceCalls)
    expect(compiled.body).toEqual(reference.body)
  })
})
