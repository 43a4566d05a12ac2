import { describe, expect, it } from 'vitest'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { graphql } from '../gql/index.js'
import { bigList, claes, companyArgs, companyVars, michiels } from '../support/fixtures.js'
import { startStack } from '../support/stack.js'

/**
 * Every fault class of the upstream, through the whole gateway: the right code on the failing
 * field only, HTTP 200 with the rest of the data, and the gateway keeps serving. Injected delays
 * are ten times the timeout: UPSTREAM_TIMEOUT instead of data proves the deadline fired.
 */

// Long enough for two retries with the default backoff (at most 100 + 200 ms) inside it.
const TIMEOUT = 1000
const stack = await startStack({ upstreamTimeoutMs: TIMEOUT, upstreamMaxResponseBytes: 64 * 1024 })
const { demo } = stack
const company = michiels
const vars = companyVars(company)
const FINANCIALS = new RegExp(`/${company.companyNumber}/financials$`)

const Page = graphql(`
  query FaultPage($country: Country!, $number: String!) {
    company(country: $country, number: $number) {
      number
      statements: financials(first: 2) { totalCount }
      shareholders { name }
    }
    lists(first: 1) { totalCount }
  }
`)

/** Runs the page; the statements fail with `code`, everything else is there. */
async function expectFailure(code: string) {
  const result = await stack.execute(Page, vars)
  expect(result.status).toBe(200)
  expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
    [['company', 'statements'], code],
  ])
  // The failing connection alone is null: the company and its other fields stay.
  expect(result.data).toEqual({
    company: {
      number: company.companyNumber,
      statements: null,
      shareholders: demo.data
        .relationshipsOf(company)
        .parents.map((p) => ({ name: p.name ?? null })),
    },
    lists: { totalCount: demo.data.lists.length },
  })
  expect(JSON.stringify(result)).not.toContain(demo.url)
  expect(JSON.stringify(result)).not.toContain('demo-token')
  // And the gateway keeps serving.
  demo.reset()
  const after = await stack.execute(Page, vars)
  expect(after.errors).toBeUndefined()
  expect(after.data?.company?.statements?.totalCount).toBe(demo.data.financialsOf(company).length)
  return result
}

describe('upstream faults', () => {
  it('500 → UPSTREAM_ERROR, not retried', async () => {
    demo.inject({ path: FINANCIALS, status: 500 })
    await expectFailure('UPSTREAM_ERROR')
    // expectFailure cleared the fault: count the calls of a fresh run.
    demo.reset()
    demo.inject({ path: FINANCIALS, status: 500 })
    await stack.execute(Page, vars)
    expect(demo.calls().filter((c) => FINANCIALS.test(c.path))).toHaveLength(1)
  })

  it('a 503 storm → UPSTREAM_ERROR after 2 retries', async () => {
    demo.inject({ path: FINANCIALS, status: 503 })
    const result = await stack.execute(Page, vars)
    expect(result.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR')
    expect(demo.calls().filter((c) => FINANCIALS.test(c.path))).toHaveLength(3)
    demo.reset()
    demo.inject({ path: FINANCIALS, status: 503 })
    await expectFailure('UPSTREAM_ERROR')
  })

  it('a passing 503 is retried and the page is whole', async () => {
    demo.inject({ path: FINANCIALS, status: 503, times: 1 })
    const result = await stack.execute(Page, vars)
    expect(result.errors).toBeUndefined()
    expect(result.extensions?.cost).toMatchObject({ upstreamCalls: 4 })
  })

  it('429 with a Retry-After past the deadline → RATE_LIMITED with retryAfterSeconds, at once; then the whole token waits', async () => {
    // A gateway of its own: the pause the upstream asks for holds every read made with the token.
    const paused = stack.replica()
    demo.inject({ path: FINANCIALS, status: 429, retryAfter: '30', times: 1 })
    const first = await paused.execute(Page, vars)
    expect(first.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['company', 'statements'], 'RATE_LIMITED'],
    ])
    expect(first.errors?.[0]?.extensions?.retryAfterSeconds).toBe(30)
    demo.reset()
    // Every read of the next operation would have to wait 30 s, past its deadline: refused at
    // once, nothing sent. That says nothing of the company: it stays, with what the caller gave.
    const next = await paused.execute(Page, vars)
    expect(next.data).toEqual({
      company: { number: company.companyNumber, statements: null, shareholders: null },
      lists: null,
    })
    expect(new Set(next.errors?.map((e) => e.extensions?.code))).toEqual(new Set(['RATE_LIMITED']))
    expect(next.errors?.[0]?.extensions?.retryAfterSeconds).toBeGreaterThan(25)
    // Said as it happened: the upstream asked to wait; no rate limit is set.
    for (const error of next.errors ?? []) {
      expect(error.message).toMatch(/the upstream answered 429 and asked to wait (29|30) s/)
      expect(error.message).not.toContain('UPSTREAM_RATE_LIMIT')
    }
    expect(demo.calls()).toEqual([])
  })

  // A company asked for by number is null exactly when its statements read says 401, 403 or
  // 404, whatever its other reads say; the rest of the page stands.
  it.each([
    [401, 'UNAUTHENTICATED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
  ])('%i → %s on the company', async (status, code) => {
    demo.inject({ path: FINANCIALS, status })
    const result = await stack.execute(Page, vars)
    expect(result.status).toBe(200)
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['company'], code]])
    expect(result.data).toEqual({ company: null, lists: { totalCount: demo.data.lists.length } })
  })

  it('slow headers → UPSTREAM_TIMEOUT', async () => {
    demo.inject({ path: FINANCIALS, delayMs: TIMEOUT * 10 })
    await expectFailure('UPSTREAM_TIMEOUT')
  })

  it('a slow body → UPSTREAM_TIMEOUT', async () => {
    demo.inject({ path: FINANCIALS, bodyDelayMs: TIMEOUT * 10 })
    await expectFailure('UPSTREAM_TIMEOUT')
  })

  it('connection reset mid-body, every time → UPSTREAM_ERROR', async () => {
    demo.inject({ path: FINANCIALS, resetMidBody: true })
    await expectFailure('UPSTREAM_ERROR')
  })

  it('invalid JSON → UPSTREAM_BAD_RESPONSE', async () => {
    demo.inject({ path: FINANCIALS, body: '{"identifier": ' })
    await expectFailure('UPSTREAM_BAD_RESPONSE')
  })

  it('JSON that breaks the schema → UPSTREAM_BAD_RESPONSE naming the path', async () => {
    demo.inject({
      path: FINANCIALS,
      transform: (json) => ({ ...(json as object), data: [{ startDate: 'yesterday' }] }),
    })
    const result = await expectFailure('UPSTREAM_BAD_RESPONSE')
    expect(result.errors?.[0]?.message).toContain('data.0.startDate')
  })

  it('an oversized body → UPSTREAM_BAD_RESPONSE', async () => {
    demo.inject({ path: FINANCIALS, body: JSON.stringify({ junk: 'x'.repeat(200 * 1024) }) })
    await expectFailure('UPSTREAM_BAD_RESPONSE')
  })
})

// A gateway whose upstream has stopped (its connections are refused), and a cap of 2 connections.
const nowhere = await startStack({ upstreamToken: DEMO_TOKEN, upstreamTimeoutMs: TIMEOUT })
await nowhere.demo.stop()
const capped = await startStack({ upstreamMaxConnections: 2, upstreamToken: 'demo-token' })

describe('an upstream that is not there', () => {
  it('connection refused → UPSTREAM_ERROR on every field that needs it, and not ready', async () => {
    const { status, body } = await nowhere.post(
      `{ company(${companyArgs(claes)}) { number name } list(listId: ${bigList.id}) { name } }`,
      {},
      {},
    )
    expect(status).toBe(200)
    // Nothing says the company is unknown: it stays, with its name null and the reason.
    expect(body.data).toEqual({ company: { number: claes.companyNumber, name: null }, list: null })
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual([
      'UPSTREAM_ERROR',
      'UPSTREAM_ERROR',
    ])
    expect((await nowhere.request({ path: '/ready' })).status).toBe(503)
    expect((await nowhere.request({ path: '/health' })).status).toBe(200)
  })
})

describe('readiness (/ready)', () => {
  it('costs the upstream one call however many probes come', async () => {
    const probe = stack.replica()
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => probe.request({ path: '/ready' })),
    )
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200))
    expect((await probe.request({ path: '/ready' })).status).toBe(200)
    expect(demo.calls()).toHaveLength(1)
  })

  it('is not ready when the upstream refuses the gateway’s own token', async () => {
    const refused = stack.replica({ upstreamToken: 'a revoked token' })
    expect((await refused.request({ path: '/ready' })).status).toBe(503)
    expect(demo.calls().map((c) => c.status)).toEqual([401])
  })
})

describe('UPSTREAM_MAX_CONNECTIONS', () => {
  it('caps concurrent upstream requests; the rest wait their turn and succeed', async () => {
    capped.demo.latencyMs = 30
    const Many = graphql(`
      query ManyLists { lists(first: 10) { nodes { name companies(first: 1) { totalCount } } } }
    `)
    const result = await capped.execute(Many)
    expect(result.errors).toBeUndefined()
    expect(capped.demo.calls()).toHaveLength(11)
    expect(capped.demo.peakInFlight).toBe(2)
  })
})
