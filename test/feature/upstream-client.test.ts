import { MockAgent } from 'undici'
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import { DEMO_TOKEN, DemoUpstream } from '../../src/demo-upstream/server.js'
import { UpstreamClient, type UpstreamClientOptions } from '../../src/upstream/client.js'
import { prepare } from '../../src/upstream/endpoint.js'
import { UpstreamError } from '../../src/upstream/errors.js'
import type { Caller } from '../../src/upstream/read-scope.js'
import { companyContacts } from '../../src/upstream/resources/company-contacts.js'
import { financials } from '../../src/upstream/resources/financials.js'
import { listDetails, listOverview } from '../../src/upstream/resources/lists.js'
import { readScope, testTokenKey } from '../support/scope.js'

/** Every upstream failure becomes an UpstreamError with its contract code, over real HTTP. */

const demo = new DemoUpstream()
const company = demo.data.companies.find((c) => demo.data.financialsOf(c).length > 2)
if (!company) throw new Error('demo data has no company with statements')
const TIMEOUT = 300
let client: UpstreamClient
const caller: Caller = { token: DEMO_TOKEN }

beforeAll(async () => {
  await demo.start()
  client = clientFor(demo.url)
})

/** A client of the demo upstream with short timeouts and backoff, unless told otherwise. */
function clientFor(baseUrl: string, options: Partial<UpstreamClientOptions> = {}) {
  return new UpstreamClient({
    baseUrl,
    languageHeader: 'Accept-Language',
    timeoutMs: TIMEOUT,
    maxConnections: 8,
    maxResponseBytes: 256 * 1024,
    retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 20 },
    tokenKey: testTokenKey,
    ...options,
  })
}
afterAll(async () => {
  await client.close()
  await demo.stop()
})
beforeEach(() => demo.reset())

const readFinancials = (who: Caller = caller, on = client) =>
  on.send(prepare(financials, { company, limit: 5, offset: 0 }), readScope({ caller: who }))

/** A client of its own for the test: a 429 pauses every read of its token on the client told. */
function ownClient() {
  const own = clientFor(demo.url)
  onTestFinished(() => own.close())
  return own
}

/** Runs a read that must fail; returns its error. */
async function failure(read: () => Promise<unknown>) {
  const error = await read().then(
    () => {
      throw new Error('the read succeeded')
    },
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(UpstreamError)
  const upstreamError = error as UpstreamError
  // Never the token, never the upstream's address, always the endpoint.
  expect(upstreamError.message).not.toContain(DEMO_TOKEN)
  expect(upstreamError.message).not.toContain(demo.url)
  expect(upstreamError.message).toContain('GET /v1/')
  return { error: upstreamError }
}

const FINANCIALS = /\/financials$/

describe('a good answer', () => {
  it('is parsed into the documented shape', async () => {
    const body = await readFinancials()
    expect(body.identifier.companyNumber).toBe(company.companyNumber)
    expect(body.data).toEqual(demo.data.financialsOf(company).slice(0, 5))
  })
})

describe('status codes', () => {
  it.each([
    [404, 'NOT_FOUND'],
    [403, 'FORBIDDEN'],
    [401, 'UNAUTHENTICATED'],
    [500, 'UPSTREAM_ERROR'],
    [503, 'UPSTREAM_ERROR'],
    [400, 'UPSTREAM_ERROR'],
    [302, 'UPSTREAM_ERROR'],
  ])('%i becomes %s', async (status, code) => {
    demo.inject({ path: FINANCIALS, status })
    const { error } = await failure(() => readFinancials())
    expect([error.code, error.status]).toEqual([code, status])
  })

  it('a real 404 for an unknown list is NOT_FOUND', async () => {
    const { error } = await failure(() =>
      client.send(prepare(listDetails, { listId: 1 }), readScope()),
    )
    expect(error.code).toBe('NOT_FOUND')
  })

  it('a token the upstream refuses is UNAUTHENTICATED', async () => {
    const { error } = await failure(() => readFinancials({ token: 'wrong' }))
    expect(error.code).toBe('UNAUTHENTICATED')
    expect(error.message).not.toContain('wrong')
  })

  it('429 is RATE_LIMITED with the seconds of Retry-After, given as seconds or as a date', async () => {
    demo.inject({ path: FINANCIALS, status: 429, retryAfter: '7', times: 1 })
    expect((await failure(() => readFinancials(caller, ownClient()))).error).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterSeconds: 7,
    })
    demo.inject({
      path: FINANCIALS,
      status: 429,
      retryAfter: new Date(Date.now() + 30_000).toUTCString(),
      times: 1,
    })
    const { error } = await failure(() => readFinancials(caller, ownClient()))
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(28)
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(31)
  })
})

describe('no token', () => {
  it('is UNAUTHENTICATED before any call', async () => {
    const { error } = await failure(() => readFinancials({}))
    expect(error.code).toBe('UNAUTHENTICATED')
    expect(demo.calls()).toEqual([])
  })
})

describe('bodies', () => {
  it('a body that is not JSON is UPSTREAM_BAD_RESPONSE', async () => {
    demo.inject({ path: FINANCIALS, body: '<html>oops</html>' })
    const { error } = await failure(() => readFinancials())
    expect(error.code).toBe('UPSTREAM_BAD_RESPONSE')
    expect(error.message).toContain('not JSON')
    expect(error.message).not.toContain('oops')
  })

  it('JSON that breaks the documented shape names the offending path, not the body', async () => {
    demo.inject({
      path: FINANCIALS,
      transform: (json) => {
        const body = json as { data: { profitability: { revenue: unknown } }[] }
        if (body.data[1]) body.data[1].profitability.revenue = 'lots of money'
        return body
      },
    })
    const { error } = await failure(() => readFinancials())
    expect(error.code).toBe('UPSTREAM_BAD_RESPONSE')
    expect(error.message).toContain('data.1.profitability.revenue')
    expect(error.message).not.toContain('lots of money')
  })

  it('a body above the size limit is UPSTREAM_BAD_RESPONSE', async () => {
    demo.inject({ path: FINANCIALS, body: JSON.stringify({ padding: 'x'.repeat(400 * 1024) }) })
    const { error } = await failure(() => readFinancials())
    expect(error.code).toBe('UPSTREAM_BAD_RESPONSE')
    expect(error.message).toContain('too large')
  })

  it('tolerates unknown extra fields and missing optional figures', async () => {
    demo.inject({
      path: FINANCIALS,
      transform: (json) => {
        const body = json as {
          extra: boolean
          data: { solvency: Record<string, unknown>; note?: string }[]
        }
        body.extra = true
        for (const record of body.data) {
          record.note = 'new field'
          delete record.solvency.capital
        }
        return body
      },
    })
    const body = await readFinancials()
    expect(body.data[0]?.solvency.capital).toBeNull()
    expect(body.data[0]).not.toHaveProperty('note')
  })
})

describe('transport', () => {
  // The answers would come, after 100 × the timeout: UPSTREAM_TIMEOUT proves the deadline fired.
  it('headers slower than UPSTREAM_TIMEOUT_MS are UPSTREAM_TIMEOUT', async () => {
    demo.inject({ path: FINANCIALS, delayMs: TIMEOUT * 100 })
    const { error } = await failure(() => readFinancials())
    expect(error.code).toBe('UPSTREAM_TIMEOUT')
  })

  it('a body slower than the deadline is UPSTREAM_TIMEOUT', async () => {
    demo.inject({ path: FINANCIALS, bodyDelayMs: TIMEOUT * 100 })
    const { error } = await failure(() => readFinancials())
    expect(error.code).toBe('UPSTREAM_TIMEOUT')
  })

  it('a connection reset in the middle of the body is UPSTREAM_ERROR', async () => {
    demo.inject({ path: FINANCIALS, resetMidBody: true })
    const { error } = await failure(() => readFinancials())
    expect(error.code).toBe('UPSTREAM_ERROR')
  })

  describe('a refused connection', () => {
    const closed = new DemoUpstream({ data: demo.data })
    let nowhere: UpstreamClient | undefined
    beforeAll(async () => {
      const url = await closed.start()
      await closed.stop()
      nowhere = clientFor(url)
    })
    afterAll(() => nowhere?.close())

    it('is UPSTREAM_ERROR', async () => {
      const { error } = await failure(
        () =>
          nowhere?.send(prepare(financials, { company, limit: 1, offset: 0 }), readScope()) ??
          Promise.reject(new Error('no client')),
      )
      expect(error.code).toBe('UPSTREAM_ERROR')
      expect(error.message).toContain('ECONNREFUSED')
    })
  })

  it('keeps working after faults', async () => {
    demo.inject({ path: FINANCIALS, status: 500, times: 1 })
    await failure(() => readFinancials())
    expect((await readFinancials()).data.length).toBeGreaterThan(0)
  })
})

describe('requests as sent (MockAgent)', () => {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const pool = agent.get('https://api.example.test')
  const mocked = (serviceToken?: string) =>
    clientFor('https://api.example.test/base/', {
      serviceToken,
      languageHeader: 'X-Language',
      dispatcher: agent,
    })

  it('encodes path segments, sorts the query, joins lists and sends token and language', async () => {
    let seen: { path: string; headers: Record<string, string> } | undefined
    pool
      .intercept({ path: (p) => p.startsWith('/base/v1/companies/'), method: 'GET' })
      .reply(200, (options) => {
        seen = { path: options.path, headers: options.headers as Record<string, string> }
        return {
          identifier: { country: 'NL', companyNumber: 'a/b', name: 'X', place: null },
          data: [],
          pagination: { limit: 5, offset: 0, total: 0 },
        }
      })
    await mocked().send(
      prepare(companyContacts, {
        company: { country: 'NL', companyNumber: 'a/b' },
        q: 'jan de',
        seniorities: ['NON_MANAGEMENT', 'C_LEVEL'],
        departments: [],
        onlyOfficialRoles: true,
        limit: 5,
        offset: 0,
      }),
      readScope({ caller: { token: 'caller-token', language: 'FR' } }),
    )
    expect(seen?.path).toBe(
      '/base/v1/companies/NL/a%2Fb/contacts?limit=5&offset=0&onlyOfficialRoles=true&q=jan+de&seniorities=C_LEVEL%2CNON_MANAGEMENT',
    )
    expect(seen?.headers).toMatchObject({
      authorization: 'Bearer caller-token',
      'X-Language': 'FR',
    })
  })

  it('uses the service token instead of the caller’s when one is configured', async () => {
    let authorization: string | undefined
    pool
      .intercept({ path: '/base/v1/lists?limit=1&offset=0&type=OVERVIEW', method: 'GET' })
      .reply(200, (options) => {
        authorization = (options.headers as Record<string, string>).authorization
        return { data: [], pagination: { limit: 1, offset: 0, total: 0 } }
      })
    await mocked('service-token').send(
      prepare(listOverview, { kind: 'OVERVIEW', limit: 1, offset: 0 }),
      readScope({ caller: { token: 'caller-token' } }),
    )
    expect(authorization).toBe('Bearer service-token')
  })
})

describe('retries', () => {
  /** Sends a read; every request it sent drew once from its scope and reached the demo. */
  const attemptsOf = async (on = client) => {
    const counted = readScope()
    const outcome = await on
      .send(prepare(financials, { company, limit: 5, offset: 0 }), counted)
      .then(
        () => 'ok',
        (e: UpstreamError) => e.code,
      )
    expect(demo.calls()).toHaveLength(counted.spent)
    return { outcome, attempts: counted.spent }
  }

  it.each([
    ['a 503', { status: 503 }],
    ['a 502', { status: 502 }],
    ['a 504', { status: 504 }],
    ['a connection reset mid-body', { resetMidBody: true }],
  ])('retries %s and succeeds', async (_name, fault) => {
    demo.inject({ path: FINANCIALS, times: 1, ...fault })
    expect(await attemptsOf()).toEqual({ outcome: 'ok', attempts: 2 })
  })

  it('gives up after 2 retries of a 503 storm', async () => {
    demo.inject({ path: FINANCIALS, status: 503 })
    expect(await attemptsOf()).toEqual({ outcome: 'UPSTREAM_ERROR', attempts: 3 })
  })

  it.each([
    [500, 'UPSTREAM_ERROR'],
    [400, 'UPSTREAM_ERROR'],
    [401, 'UNAUTHENTICATED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
  ])('never retries %i', async (status, code) => {
    demo.inject({ path: FINANCIALS, status })
    expect(await attemptsOf()).toEqual({ outcome: code, attempts: 1 })
  })

  it('never retries a body that breaks the schema, nor a timeout', async () => {
    demo.inject({ path: FINANCIALS, body: 'nope', times: 1 })
    expect(await attemptsOf()).toEqual({ outcome: 'UPSTREAM_BAD_RESPONSE', attempts: 1 })
    demo.reset()
    demo.inject({ path: FINANCIALS, delayMs: TIMEOUT * 3, times: 1 })
    expect(await attemptsOf()).toEqual({ outcome: 'UPSTREAM_TIMEOUT', attempts: 1 })
  })

  describe('Retry-After', () => {
    let patient: UpstreamClient | undefined
    beforeAll(() => {
      patient = clientFor(demo.url, { timeoutMs: 3000 })
    })
    afterAll(() => patient?.close())

    it('waits as long as Retry-After says when the deadline allows, then succeeds', async () => {
      demo.inject({ path: FINANCIALS, status: 429, retryAfter: '1', times: 1 })
      const started = performance.now()
      expect(await attemptsOf(patient)).toEqual({ outcome: 'ok', attempts: 2 })
      // A lower bound: a loaded machine only makes the wait longer.
      expect(performance.now() - started).toBeGreaterThanOrEqual(990)
    })
  })

  it('does not wait past the deadline: a long Retry-After fails at once with RATE_LIMITED', async () => {
    demo.inject({ path: FINANCIALS, status: 429, retryAfter: '3600' })
    const counted = readScope()
    const error = await ownClient()
      .send(prepare(financials, { company, limit: 5, offset: 0 }), counted)
      .catch((e: UpstreamError) => e)
    expect(error).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 3600 })
    expect(counted.spent).toBe(1)
  })

  it('a 503 with a Retry-After past the deadline fails at once, UPSTREAM_ERROR with its seconds', async () => {
    demo.inject({ path: FINANCIALS, status: 503, retryAfter: '120' })
    const counted = readScope()
    const error = await client
      .send(prepare(financials, { company, limit: 5, offset: 0 }), counted)
      .catch((e: UpstreamError) => e)
    expect(error).toBeInstanceOf(UpstreamError)
    expect((error as UpstreamError).extensions).toEqual({
      code: 'UPSTREAM_ERROR',
      retryable: true,
      retryAfterSeconds: 120,
    })
    expect(counted.spent).toBe(1)
  })

  describe('a failing upstream', () => {
    let fresh: UpstreamClient | undefined
    beforeAll(() => {
      fresh = clientFor(demo.url, { timeoutMs: 2000, maxConnections: 16 })
    })
    afterAll(() => fresh?.close())

    it('sees about 1.2 × the calls, not 3 × (retry budget)', async () => {
      demo.inject({ path: FINANCIALS, status: 503 })
      const reads = 200
      await Promise.all(
        Array.from({ length: reads }, () =>
          fresh
            ?.send(prepare(financials, { company, limit: 5, offset: 0 }), readScope())
            .catch(() => undefined),
        ),
      )
      const calls = demo.calls().length
      expect(calls).toBeLessThanOrEqual(reads * 1.2 + 10)
      expect(calls).toBeGreaterThan(reads)
    })
  })
})
