import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { startStack } from './support/stack.js'

/**
 * Hostile review of compiled execution: graphql-jit waits for every resolver it has started,
 * also for those whose branch a later sibling's error has already nulled (src/nulled-branches.ts
 * only stops reads that start after the error). graphql-js answers as soon as the null has
 * landed, and the operation's end drops the reads still pending, retries included.
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
  demo.reset()
  demo.inject({ path: /\/relationships$/, status: 503 })
  const started = performance.now()
  const { body } = await gateway.post(query)
  const ms = performance.now() - started
  // Reads that land after the answer count too.
  await sleep(1500)
  const calls = demo.calls().map((c) => c.path)
  return { body, calls, ms }
}

describe('nulled branches: a branch nulled while a read of it is in flight', () => {
  it('answers, and calls the upstream, as graphql-js does', async () => {
    const reference = await run(plain)
    const compiled = await run(stack)
    console.log({
      referenceMs: reference.ms,
      compiledMs: compiled.ms,
      referenceCalls: reference.calls,
      compiledCalls: compiled.calls,
    })
    expect(reference.body.data).toEqual({ a: null })
    expect(compiled.body.errors).toEqual(reference.body.errors)
    expect(compiled.calls).toEqual(reference.calls)
  })
})
