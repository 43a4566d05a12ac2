import { expect, it } from 'vitest'
import { partsAsTheyArrive } from '../support/incremental.js'
import { demoToken, startStack } from '../support/stack.js'

/**
 * Issue 27: "Where a run-time budget is short (retries), deferred reads are refused
 * before first-part ones, so the first part does not depend on @defer." With MAX_OPERATION_COST
 * equal to the estimate (5: statements, lookalikes, three lookalike names) and the company's
 * statements answering 503 once, the deferred lookalike-name reads are sent after the 503 came
 * back and take the last units of the budget; the statements' retry is then not made, and the
 * first part loses the company's name. Without the deferred fields the retry is made and the
 * name is there.
 */

const stack = await startStack({ maxOperationCost: 5 })
const { demo } = stack
const company = 'country: BE, number: "0922178703"'

async function firstPart(query: string) {
  const response = await stack.gateway.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...demoToken },
    body: JSON.stringify({ query }),
  })
  const parts = []
  for await (const part of partsAsTheyArrive(response)) parts.push(part)
  return parts[0]
}

it('the first part is the same whether or not deferred reads share the budget', async () => {
  demo.reset()
  demo.inject({ path: '/v1/companies/BE/0922178703/financials', status: 503, times: 1 })
  const leftOut = await firstPart(`{ company(${company}) { name } }`)
  expect(leftOut?.data).toEqual({ company: { name: 'Brasserie Claes SA' } })

  demo.reset()
  demo.inject({ path: '/v1/companies/BE/0922178703/financials', status: 503, times: 1 })
  const first = await firstPart(
    `{ company(${company}) { name ... @defer { lookalikes(first: 3) { nodes { name } } } } }`,
  )
  // Before the fix: { company: { name: null } } with UPSTREAM_ERROR (the retry was never sent).
  expect(first?.data).toEqual({ company: { name: 'Brasserie Claes SA' } })
  expect(first?.errors).toBeUndefined()
})
