import { MockAgent } from 'undici'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { DEMO_TOKEN, DemoUpstream } from '../src/demo-upstream/server.js'
import { type Caller, prepare, UpstreamClient } from '../src/upstream/client.js'
import { companyContacts } from '../src/upstream/company-contacts.js'
import { UpstreamError } from '../src/upstream/errors.js'
import { financials } from '../src/upstream/financials.js'
import { listDetails, listOverview } from '../src/upstream/lists.js'

/** Every upstream failure becomes an UpstreamError with its contract code, over real HTTP. */

const demo = new DemoUpstream()
const company = demo.data.companies.find((c) => demo.data.financialsOf(c).length > 2)
if (!company) throw new Error('demo data has no company with statements')
const TIMEOUT = 300
let client: UpstreamClient
const caller: Caller = { token: DEMO_TOKEN }

beforeAll(async () => {
  await demo.start()
  client = new UpstreamClient({
    baseUrl: demo.url,
    languageHeader: 'Accept-Language',
    timeoutMs: TIMEOUT,
    maxConnections: 8,
    maxResponseBytes: 256 * 1024,
  })
})
afterAll(async () => {
  await client.close()
  await demo.stop()
})
beforeEach(() => demo.reset())

const readFinancials = (who: Caller = caller) =>
  client.send(prepare(financials, { company, limit: 5, offset: 0 }), who)

/** Runs a read that must fail; returns the error and how long it took. */
async function failure(read: () => Promise<unknown>) {
  const started = performance.now()
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
  return { error: upstreamError, ms: performance.now() - started }
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
    const { error } = await failure(() => client.send(prepare(listDetails, { listId: 1 }), caller))
    expect(error.code).toBe('NOT_FOUND')
  })

  it('a token the upstream refuses is UNAUTHENTICATED', async () => {
    const { error } = await failure(() => readFinancials({ token: 'wrong' }))
    expect(error.code).toBe('UNAUTHENTICATED')
    expect(error.message).not.toContain('wrong')
  })

  it('429 is RATE_LIMITED with the seconds of Retry-After, given as seconds or as a date', async () => {
    demo.inject({ path: FINANCIALS, status: 429, retryAfter: '7', times: 1 })
    expect((await failure(() => readFinancials())).error).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterSeconds: 7,
    })
    demo.inject({
      path: FINANCIALS,
      status: 429,
      retryAfter: new Date(Date.now() + 30_000).toUTCString(),
      times: 1,
    })
    const { error } = await failure(() => readFinancials())
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
  it('headers slower than UPSTREAM_TIMEOUT_MS are UPSTREAM_TIMEOUT, in bounded time', async () => {
    demo.inject({ path: FINANCIALS, delayMs: TIMEOUT * 5 })
    const { error, ms } = await failure(() => readFinancials())
    expect(error.code).toBe('UPSTREAM_TIMEOUT')
    expect(ms).toBeLessThan(TIMEOUT * 3)
  })

  it('a body slower than the deadline is UPSTREAM_TIMEOUT', async () => {
    demo.inject({ path: FINANCIALS, bodyDelayMs: TIMEOUT * 5 })
    const { error, ms } = await failure(() => readFinancials())
    expect(error.code).toBe('UPSTREAM_TIMEOUT')
    expect(ms).toBeLessThan(TIMEOUT * 3)
  })

  it('a connection reset in the middle of the body is UPSTREAM_ERROR', async () => {
    demo.inject({ path: FINANCIALS, resetMidBody: true })
    const { error } = await failure(() => readFinancials())
    expect(error.code).toBe('UPSTREAM_ERROR')
  })

  it('a refused connection is UPSTREAM_ERROR', async () => {
    const closed = new DemoUpstream({ data: demo.data })
    const url = await closed.start()
    await closed.stop()
    const nowhere = new UpstreamClient({
      baseUrl: url,
      languageHeader: 'Accept-Language',
      timeoutMs: TIMEOUT,
      maxConnections: 1,
    })
    const { error } = await failure(() =>
      nowhere.send(prepare(financials, { company, limit: 1, offset: 0 }), caller),
    )
    expect(error.code).toBe('UPSTREAM_ERROR')
    expect(error.message).toContain('ECONNREFUSED')
    await nowhere.close()
  })

  it('keeps working after faults', async () => {
    demo.inject({ path: FINANCIALS, resetMidBody: true, times: 1 })
    await failure(() => readFinancials())
    expect((await readFinancials()).data.length).toBeGreaterThan(0)
  })
})

describe('requests as sent (MockAgent)', () => {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const pool = agent.get('https://api.example.test')
  const mocked = (serviceToken?: string) =>
    new UpstreamClient({
      baseUrl: 'https://api.example.test/base/',
      serviceToken,
      languageHeader: 'X-Language',
      timeoutMs: 1000,
      maxConnections: 1,
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
      { token: 'caller-token', language: 'FR' },
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
      {
        token: 'caller-token',
      },
    )
    expect(authorization).toBe('Bearer service-token')
  })
})
