import { describe, expect, it } from 'vitest'
import { bothExecutors } from './support/executors.js'
import { startStack } from './support/stack.js'

/**
 * Hostile review of compiled execution: graphql-jit names each field's resolve info after its
 * response path, keys joined with "_" (leaf first): the top-level alias `co_idx0_sh_c` and the
 * path c.sh[0].co both become `co_idx0_sh_cInfo`, and the one compiled last wins. Query.company
 * then runs with the info (fieldNodes) of Relationship.company, and src/prefetch.ts starts the
 * reads of the other field's selection on it.
 */

const stack = await startStack({ upstreamToken: 'demo-token' })
const plain = stack.replica({ compiledExecution: 'never' })
const { demo } = stack
const { data } = demo
const company = data.companies.find((c) => data.financialsOf(c).length > 0)
if (!company) throw new Error('demo data lacks a company with statements')

const both = bothExecutors(stack, plain)

describe('compiled execution: resolve infos of two paths collide', () => {
  it('an unknown company stays null with NOT_FOUND', async () => {
    // The refused financials of the other path make prefetch report "refused", and
    // existingCompany then returns the company without checking that the upstream has it.
    const query = `{
      co_idx0_sh_c: company(country: BE, number: "0000000097") { number }
      c: company(country: BE, number: "1") { sh: shareholders { co: company { financials(first: -1) { totalCount } } } }
    }`
    const { compiled, reference } = await both(query)
    expect(reference.body.data).toEqual({ co_idx0_sh_c: null, c: null })
    expect(compiled.body.data).toEqual(reference.body.data)
    expect(compiled.body.errors).toEqual(reference.body.errors)
  })

  it('a company asked for its number alone is not read for fields asked elsewhere', async () => {
    const query = `{
      co_idx0_sh_c: company(country: ${company.country}, number: "${company.companyNumber}") { number }
      c: company(country: BE, number: "1") { sh: shareholders { co: company {
        financials(first: 1) { totalCount } lookalikes(first: 1) { totalCount }
        shareholders { name } contacts(first: 1) { totalCount } } } }
    }`
    const { compiled, reference, compiledCalls, referenceCalls } = await both(query)
    expect(compiled.body.data).toEqual(reference.body.data)
    expect(compiledCalls).toEqual(referenceCalls)
  })
})
