import { describe, expect, it } from 'vitest'
import { createLogger } from '../src/logger.js'
import { logSink } from './support/log-sink.js'
import { startStack } from './support/stack.js'

/**
 * Hostile review of compiled execution: values graphql-jit handled otherwise than graphql-js (a
 * Float default beyond double range became null; a value a scalar cannot represent reached the
 * client unmasked, quoting the upstream; one error per failing list item where graphql-js gives
 * one). Both executors now answer alike.
 */
const log = logSink()
const stack = await startStack(
  { upstreamToken: 'demo-token', production: true },
  createLogger('debug', log.stream),
)
const plain = stack.replica({ compiledExecution: 'never' })
const { demo } = stack
const company = demo.data.companies[0]
if (!company) throw new Error('demo data')
const at = `country: ${company.country}, number: "${company.companyNumber}"`

async function both(query: string, prepare = () => {}) {
  await stack.post(query)
  await plain.post(query)
  demo.reset()
  prepare()
  log.clear()
  const compiled = await stack.post(query)
  const compiledCalls = demo.calls().map((c) => c.path)
  const compiledLog = log.text()
  demo.reset()
  prepare()
  log.clear()
  const reference = await plain.post(query)
  const referenceCalls = demo.calls().map((c) => c.path)
  const referenceLog = log.text()
  return { compiled, reference, compiledCalls, referenceCalls, compiledLog, referenceLog }
}

describe('a Float variable default beyond double range (1e400 = Infinity)', () => {
  it.each(['1e400', '-1e400', '1.7976931348623159e308'])('$s: Float = %s', async (literal) => {
    const query = `query($s: Float = ${literal}) { company(${at}) { lookalikes(first: 3, minScore: $s) { totalCount } } }`
    const r = await both(query)
    // graphql-js: minScore is ±Infinity, BAD_USER_INPUT, company null, no upstream call.
    expect(r.reference.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT')
    expect(r.referenceCalls).toEqual([])
    // graphql-jit wrote the default into its code as JSON, which has no Infinity: minScore was
    // null, and every lookalike was read.
    expect(r.compiled.body).toEqual(r.reference.body)
    expect(r.compiledCalls).toEqual(r.referenceCalls)
  })
})

describe('an upstream Int beyond 32 bits (healthIndicator, employees), production', () => {
  it('is masked (Unexpected error.) by either executor', async () => {
    const query = `{ company(${at}) { financials(first: 2) { nodes { healthIndicator } } } }`
    const r = await both(query, () =>
      demo.inject({
        path: /financials/,
        transform: (json) => {
          const [first] = (json as { data: { healthIndicator: number }[] }).data
          if (first) first.healthIndicator = 3e9
          return json
        },
      }),
    )
    // graphql-js: "Unexpected error." and an error line with the stack; graphql-jit's message
    // quoted the upstream's value to the client, and nothing was logged.
    expect(r.reference.body.errors?.[0]?.message).toBe('Unexpected error.')
    expect(r.compiled.body.errors?.[0]?.message).toBe(r.reference.body.errors?.[0]?.message)
    expect(r.compiledLog.includes('Int cannot represent')).toBe(
      r.referenceLog.includes('Int cannot represent'),
    )
  })
})

describe('several non-null fields failing inside one nulled branch', () => {
  it('is reported once, as graphql-js does', async () => {
    const query = `{ company(${at}) { name contacts(first: 3) { nodes { contactId firstName } } } }`
    const r = await both(query, () =>
      demo.inject({
        path: /contacts/,
        // An upstream with 64-bit contact IDs.
        transform: (json) => {
          for (const c of (json as { data: { identifier: { contactId: number } }[] }).data) {
            c.identifier.contactId += 2 ** 40
          }
          return json
        },
      }),
    )
    expect(r.reference.body.data).toEqual({ company: null })
    expect(r.reference.body.errors?.length).toBe(1)
    expect(r.compiled.body.errors?.length).toBe(r.reference.body.errors?.length)
  })
})
