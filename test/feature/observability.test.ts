import { request } from 'undici'
import { describe, expect, it, vi } from 'vitest'
import type { ReceivedCall } from '../../src/demo-upstream/server.js'
import { createLogger } from '../../src/observability/logger.js'
import { bigList, companyArgs, michiels, smartList } from '../support/fixtures.js'
import { logSink } from '../support/log-sink.js'
import { metricsOf, sample } from '../support/metrics.js'
import { serve } from '../support/serve.js'
import { type Client, demoToken, startStack } from '../support/stack.js'

/**
 * What operators see: /metrics in Prometheus text with the contract's metrics and labels, and one
 * request followed by its X-Request-Id from the caller through the logs to the upstream.
 */

const log = logSink()
const stack = await startStack(
  { cacheTtlSeconds: 300 },
  { logger: createLogger('debug', log.stream) },
)
const { demo } = stack
const company = michiels
const list = bigList

describe('/metrics', () => {
  it('counts every upstream request by path template and status, and the operations by outcome', async () => {
    const fresh = stack.replica()
    const query = `{ company(${companyArgs(company)}) { name financials(first: 2) { totalCount } } list(listId: ${list.id}) { name } }`
    demo.inject({ path: `/v1/lists/${list.id}`, status: 503, times: 1 })
    const { body } = await fresh.post(query)
    expect(body.errors).toBeUndefined()
    await fresh.post('{ list(listId: 99999999) { name } }')
    await fresh.post('{ nope }')

    const text = await metricsOf(fresh)
    const requests = (endpoint: string, status: string | number) =>
      sample(text, `gateway_upstream_requests_total{endpoint="${endpoint}",status="${status}"}`)
    const calls = demo.calls()
    expect(requests('/v1/lists/{id}', 503)).toBe(1)
    expect(requests('/v1/lists/{id}', 200)).toBe(1)
    expect(requests('/v1/lists/{id}', 404)).toBe(1)
    expect(requests('/v1/companies/{countryCode}/{companyNumber}/financials', 200)).toBe(
      calls.filter((c) => c.path.endsWith('/financials')).length,
    )
    expect(
      sample(text, 'gateway_upstream_request_duration_seconds_count{endpoint="/v1/lists/{id}"}'),
    ).toBe(3)
    expect(sample(text, 'gateway_operations_total{status="ok"}')).toBe(1)
    expect(sample(text, 'gateway_operations_total{status="partial"}')).toBe(1)
    expect(sample(text, 'gateway_operations_total{status="refused"}')).toBe(1)
    expect(sample(text, 'gateway_operation_duration_seconds_count{status="ok"}')).toBe(1)
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m)
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m)
    // Labels carry templates and fixed words only. (Only the label sets are searched: a sample's
    // value, a byte count or a duration, may well hold the digits of a list id.)
    const labels = [...text.matchAll(/^[a-zA-Z_:][\w:]*\{(.*)\} \S+$/gm)]
      .map(([, set]) => set)
      .join('\n')
    expect(labels).toContain('endpoint="/v1/lists/{id}"')
    for (const secret of [
      'demo-token',
      company.companyNumber,
      'financials(first',
      String(list.id),
    ]) {
      expect(labels).not.toContain(secret)
    }
    expect(text).not.toContain('demo-token')
  })

  it('counts cache reads by result', async () => {
    const query = `{ list(listId: ${list.id}) { type } }`
    const cached = stack.replica({ cacheTtlSeconds: 300 })
    await cached.post(query)
    await cached.post(query)
    // Reads that failed (a 404, an upstream 500) were misses too: the hit ratio counts them.
    await cached.post('{ list(listId: 99999999) { type } }')
    demo.inject({ path: /^\/v1\/lists\/\d+$/, status: 500 })
    await cached.post(`{ other: list(listId: ${smartList.id}) { type } }`)
    const text = await metricsOf(cached)
    expect(sample(text, 'gateway_cache_reads_total{result="miss"}')).toBe(3)
    expect(sample(text, 'gateway_cache_reads_total{result="hit"}')).toBe(1)
  })
})

describe('streamed operations (@defer)', () => {
  /** Sends `query` asking for a multipart answer, and reads it to its end. */
  const streamed = (client: Client, query: string) =>
    client.request({ headers: { accept: 'multipart/mixed', ...demoToken }, body: { query } })

  it('are logged and counted like the rest, marked streamed', async () => {
    const streaming = stack.replica()
    log.clear()
    await streamed(
      streaming,
      `query Deferred { list(listId: ${list.id}) { name ... @defer { type } } }`,
    )
    expect(log.lines().filter((l) => l.msg === 'operation')).toEqual([
      expect.objectContaining({ operation: 'Deferred', outcome: 'ok', streamed: true }),
    ])
    expect(sample(await metricsOf(streaming), 'gateway_operations_total{status="ok"}')).toBe(1)
  })

  it('are logged when their last part is sent: every upstream call, the deferred errors, the whole duration', async () => {
    const streaming = stack.replica({ cacheTtlSeconds: 0 })
    demo.reset()
    log.clear()
    // The deferred read is slow: a line written at the first part would miss it.
    demo.inject({ path: /\/financials$/, delayMs: 300 })
    await streamed(
      streaming,
      `query Hidden { list(listId: ${list.id}) { name } ... @defer { company(${companyArgs(company)}) { financials(first: 1) { totalCount } } } ... @defer { missing: company(country: BE, number: "0123456749") { name } } }`,
    )
    const [line, ...others] = log.lines().filter((l) => l.msg === 'operation')
    expect(others).toEqual([])
    expect(line).toMatchObject({
      operation: 'Hidden',
      outcome: 'partial',
      streamed: true,
      upstreamCalls: demo.calls().length,
      errors: ['NOT_FOUND'],
    })
    expect(demo.calls().length).toBeGreaterThanOrEqual(3)
    expect(Number(line?.durationMs)).toBeGreaterThanOrEqual(300)
    const text = await metricsOf(streaming)
    expect(sample(text, 'gateway_operations_total{status="partial"}')).toBe(1)
    expect(sample(text, 'gateway_operations_total{status="ok"}')).toBe(0)
  })
})

describe('the operation log line', () => {
  it("names the document's operation, never the caller's operationName as sent", async () => {
    const send = (operationName: string) =>
      stack.request({
        headers: demoToken,
        body: { query: 'query Named { __typename }', operationName },
      })
    log.clear()
    // An operationName the document does not hold: refused, and not copied into the log.
    const junk = await send(`${'X'.repeat(5000)} BE0922178703 Bearer sk_live_abc`)
    expect(junk.json().errors?.map((e) => e.extensions?.code)).toEqual([
      'OPERATION_RESOLUTION_FAILURE',
    ])
    await send('Named')
    expect(log.text()).not.toContain('sk_live_abc')
    expect(log.text()).not.toContain('XXXXXXXX')
    expect(
      log
        .lines()
        .filter((l) => l.msg === 'operation')
        .map((l) => l.operation),
    ).toEqual([null, 'Named'])
  })
})

describe('a client that goes away mid-operation', async () => {
  const { url } = await serve(stack.gateway.yoga)

  it('is no error: no error line, no 500, the operation logged as cancelled work', async () => {
    const held = demo.hold(/\/financials$/)
    log.clear()
    const leaving = new AbortController()
    const response = request(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
      body: JSON.stringify({
        query: `query Leaving { list(listId: ${list.id}) { companies(first: 5) { nodes { name financials(first: 1) { totalCount } } } } }`,
      }),
      signal: leaving.signal,
    }).catch(() => 'gone')
    const statements = (calls: ReceivedCall[]) =>
      calls.filter((c) => c.path.endsWith('/financials'))
    // All five statements' reads are in flight (held) when the client leaves…
    await demo.waitForCalls((calls) => statements(calls).length === 5)
    leaving.abort()
    expect(await response).toBe('gone')
    // …and end with the operation: none arrives at the upstream in a later test.
    await demo.waitForCalls((calls) => statements(calls).every((c) => c.abandoned))
    held.release()
    await vi.waitFor(
      () => expect(log.lines().filter((l) => l.msg === 'operation')).toHaveLength(1),
      { timeout: 10_000 },
    )
    expect(log.lines().filter((l) => Number(l.level) >= 50)).toEqual([])
    const [line] = log.lines().filter((l) => l.msg === 'operation')
    expect(line?.status).not.toBe(500)
    expect(line?.errors ?? []).not.toContain('INTERNAL_SERVER_ERROR')
  })
})

describe('the start-up warm-up', () => {
  it('runs the pipeline with no upstream call, and is no operation in the log or the metrics', async () => {
    const fresh = stack.replica()
    log.clear()
    await fresh.gateway.warm()
    expect(demo.calls()).toEqual([])
    expect(log.lines().filter((l) => l.msg === 'operation')).toEqual([])
    expect(await metricsOf(fresh)).not.toMatch(/^gateway_operations_total/m)
    // A caller's operation afterwards is counted as ever.
    await fresh.post('{ __typename }')
    expect(sample(await metricsOf(fresh), 'gateway_operations_total{status="ok"}')).toBe(1)
  })
})

describe('X-Request-Id', () => {
  it('keeps a valid one: echoed, on the log lines of the request, and sent upstream', async () => {
    log.clear()
    const response = await stack.request({
      headers: { ...demoToken, 'x-request-id': 'checkout-7f3a.1_b', 'cache-control': 'no-cache' },
      body: { query: `{ list(listId: ${list.id}) { name } }` },
    })
    expect(response.headers.get('x-request-id')).toBe('checkout-7f3a.1_b')
    expect(demo.calls().map((c) => c.requestId)).toEqual(['checkout-7f3a.1_b'])
    const lines = log.lines().filter((l) => l.msg === 'operation' || l.msg === 'upstream call')
    expect(lines.map((l) => l.msg).sort()).toEqual(['operation', 'upstream call'])
    // Every line the request wrote (the log is at debug level), not only these two.
    for (const line of log.lines()) expect(line).toMatchObject({ requestId: 'checkout-7f3a.1_b' })
    // pino's standard fields, which log shippers expect.
    expect(lines[0]).toEqual(
      expect.objectContaining({ pid: process.pid, hostname: expect.any(String) }),
    )
  })

  it('is on the failure line of a read, too', async () => {
    log.clear()
    await stack.request({
      headers: { ...demoToken, 'x-request-id': 'missing-1' },
      body: { query: '{ list(listId: 99999998) { name } }' },
    })
    const failed = log.lines().filter((l) => l.msg === 'upstream read failed')
    expect(failed).toEqual([expect.objectContaining({ code: 'NOT_FOUND', requestId: 'missing-1' })])
  })

  it('replaces one that is too long or has other characters with a new UUID', async () => {
    for (const given of ['has spaces', 'x'.repeat(129), 'semi;colon']) {
      const response = await stack.request({ path: '/health', headers: { 'x-request-id': given } })
      expect(response.headers.get('x-request-id')).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      )
    }
  })
})
