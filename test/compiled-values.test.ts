import { describe, expect, it } from 'vitest'
import { createLogger } from '../src/observability/logger.js'
import { logSink } from './support/log-sink.js'
import { startStack } from './support/stack.js'

/**
 * Hostile reviews of compiled execution: values graphql-jit handled otherwise than graphql-js (a
 * Float default beyond double range became null; an upstream number Int cannot represent was
 * quoted to the client, and the branch it nulled went on reading). Both executors now answer
 * alike.
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

describe('an upstream whole number beyond 32 bits', () => {
  // graphql-js: Int cannot serialize it, so the field failed (masked, "Unexpected error."); under
  // graphql-jit the message quoted the upstream's value, and as no field that reads upstream
  // failed, the nulled branch went on reading: it waited for the slow lookalikes and read each
  // one's statements (7 upstream calls against 2).
  const overflow = () => {
    demo.inject({
      path: /contacts/,
      transform: (json) => {
        for (const c of (json as { data: { identifier: { contactId: number } }[] }).data) {
          c.identifier.contactId += 2 ** 40
        }
        return json
      },
    })
    demo.inject({ path: /lookalikes/, delayMs: 400 })
  }

  it('fails the read that brought it, with a coded error, alike with either executor', async () => {
    const query = `{ company(${at}) { contacts(first: 3) { nodes { contactId } } lookalikes(first: 5) { nodes { name financials(first: 2) { totalCount } } } } }`
    const r = await both(query, overflow)
    expect(r.reference.body.data).toEqual({ company: null })
    expect(r.reference.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['company', 'contacts'], 'UPSTREAM_BAD_RESPONSE'],
    ])
    expect(r.compiled.body).toEqual(r.reference.body)
    expect(r.compiledCalls).toEqual(r.referenceCalls)
  })
})
