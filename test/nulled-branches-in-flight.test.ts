import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { startStack } from './support/stack.js'

/**
 * Hostile review of compiled execution: graphql-jit waits for every resolver it has started,
 * also for those whose branch a sibling's error has already nulled, so a failing read there was
 * retried and its error reported (4-5 upstream calls, 200-310 ms). NulledBranches.awaited ends
 * such a field at once: the answer and the upstream calls are those of graphql-js, which stops
 * waiting for a nulled branch and drops its pending reads, retries included, when it answers.
 */

const stack = await startStack({ upstreamToken: 'demo-token' })
const plain = stack.replica({ compiledExecution: 'never' })
const { demo } = stack
const { data } = demo
const company = data.companies.find((c) => data.relationshipsOf(c).parents.length > 0)
if (!company) throw new Error('demo data lacks a company with shareholders')

// shareholders comes first, so its read (started by prefetch) is in flight when financials
// refuses its argument and nulls `a`.
const query = `{ a: company(country: ${company.country}, number: "${company.companyNumber}") {
  shareholders { name } financials(first: -1) { totalCount } } }`

async function run(gateway: Pick<typeof stack, 'post'>) {
  await gateway.post(query)
  // The first run answers as soon as financials refuses its argument, and drops its shareholders
  // read, which may still reach the demo: let it land before counting.
  await sleep(500)
  demo.reset()
  demo.inject({ path: /\/relationships$/, status: 503 })
  const { body } = await gateway.post(query)
  // Reads that land after the answer count too.
  await sleep(1500)
  const calls = demo.calls().map((c) => c.path)
  return { body, calls }
}

describe('nulled branches: a branch nulled while a read of it is in flight', () => {
  it('answers, and calls the upstream, as graphql-js does', async () => {
    const reference = await run(plain)
    const compiled = await run(stack)
    expect(reference.body.data).toEqual({ a: null })
    expect(compiled.body.errors).toEqual(reference.body.errors)
    expect(compiled.calls).toEqual(reference.calls)
  })
})
