import { test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { DEPARTMENTS, OFFICIAL_ROLES, SENIORITIES } from '../../src/demo-upstream/vocabulary.js'
import { schema } from '../../src/schema/index.js'
import {
  bigList,
  claes,
  companyArgs,
  companyId,
  demoData,
  globalId,
  michiels,
} from '../support/fixtures.js'
import { type DemoValues, operationArbitrary } from '../support/operation-arbitrary.js'
import { startPathStates } from '../support/path-states.js'

/**
 * The path-independence battery (./path-independence.test.ts) grown beyond what anyone wrote:
 * operations made at random from the served schema and the demo's data, each answered on every
 * path. The seed is fixed (FC_SEED to try another, FC_RUNS for more operations); a failure
 * prints the seed, the path to replay it and the operation, shrunk, as its text.
 */

const paths = await startPathStates()
const seed = Number(process.env.FC_SEED ?? 20261121)
const numRuns = Number(process.env.FC_RUNS ?? 30)

/** Contact IDs and cursors as the gateway gives them (through the battery too). */
const given = (
  await paths.answer({
    query: `{
    lists(first: 3) { edges { cursor } }
    company(${companyArgs(michiels)}) {
      contacts(first: 3) { nodes { id } }
      financials(first: 2) { edges { cursor } } } }`,
  })
).data as {
  lists: { edges: { cursor: string }[] }
  company: { contacts: { nodes: { id: string }[] }; financials: { edges: { cursor: string }[] } }
}

const [nameless] = demoData.nameless
if (!nameless) throw new Error('the demo data has no nameless company')
const companies = [claes, michiels, nameless, demoData.widelyHeld]
const values: DemoValues = {
  companies: [
    ...companies.map(companyArgs),
    // Unknown to the upstream (a valid number), and malformed.
    'country: BE, number: "0000000097"',
    'country: NL, number: "12"',
  ],
  listIds: [...demoData.lists.map((l) => l.id), 999_999, -1],
  nodeIds: [
    globalId('List', bigList.id),
    globalId('List', 1005),
    globalId('List', 999_999),
    ...companies.map(companyId),
    ...given.company.contacts.nodes.map((n) => n.id),
    'nope',
  ],
  cursors: [...given.lists.edges, ...given.company.financials.edges].map((e) => e.cursor),
  filters: {
    departments: [...DEPARTMENTS],
    seniorities: [...SENIORITIES],
    officialRoles: [...OFFICIAL_ROLES],
  },
}

let answered = 0
let withoutError = 0

describe(`generated operations, answered on ${paths.title}`, () => {
  test.prop([operationArbitrary(schema, values)], {
    seed,
    numRuns,
    // Shrinking a failure stops in time to report it, before the test's own timeout.
    interruptAfterTimeLimit: 90_000,
  })(
    'agree',
    async (operation) => {
      const { errors } = await paths.answer(operation)
      // Made valid: refusals for the arguments, the data or the budget, never for the shape.
      expect(errors.filter((e) => e.code === 'GRAPHQL_VALIDATION_FAILED')).toEqual([])
      answered++
      if (errors.length === 0) withoutError++
    },
    120_000,
  )

  it('were mostly answered without error: the battery is not one of refusals', () => {
    expect(answered).toBeGreaterThan(0)
    expect(withoutError / answered).toBeGreaterThan(0.5)
  })
})
