import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { BasicTracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace-node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/config.js'
import type { ReceivedCall } from '../../src/demo-upstream/server.js'
import { startTelemetry } from '../../src/observability/tracing-sdk.js'
import { type Stack, startStack } from '../support/stack.js'

/**
 * Traces end to end on loopback: the gateway against the demo upstream, spans exported to a stub
 * OTLP/HTTP receiver, and W3C `traceparent` from the caller, through the operation's span, to
 * every request the demo receives.
 */

/** The stub OTLP receiver: every POST, with its path, content type and body. */
interface Export {
  path: string
  contentType: string
  body: Buffer
}
const collected: Export[] = []
let collector: Server
let collectorUrl: string

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      collected.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks),
      })
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' })
      res.end(req.headers['content-type'] === 'application/json' ? '{}' : '')
    })
  })
  collector.listen(0, '127.0.0.1')
  await once(collector, 'listening')
  collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`
})

afterAll(async () => {
  collector.closeAllConnections()
  await new Promise<void>((resolve) => collector.close(() => resolve()))
})

/** A span of an OTLP/JSON ExportTraceServiceRequest, attributes made a plain record. */
interface ExportedSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  status?: { code?: number; message?: string }
  attributes: Record<string, unknown>
  resource: Record<string, unknown>
  startTimeUnixNano: string
  endTimeUnixNano: string
}

interface OtlpValue {
  stringValue?: string
  intValue?: number | string
  boolValue?: boolean
  doubleValue?: number
  arrayValue?: { values?: OtlpValue[] }
}
type OtlpAttributes = { key: string; value: OtlpValue }[] | undefined

function plain(value: OtlpValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain)
  if (value.intValue !== undefined) return Number(value.intValue)
  return value.stringValue ?? value.boolValue ?? value.doubleValue
}

const attributesOf = (attributes: OtlpAttributes) =>
  Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, plain(value)]))

function spansOf(received: Export[]): ExportedSpan[] {
  const spans: ExportedSpan[] = []
  for (const { body } of received) {
    const request = JSON.parse(body.toString('utf8')) as {
      resourceSpans?: {
        resource?: { attributes?: OtlpAttributes }
        scopeSpans?: {
          spans?: (Omit<ExportedSpan, 'attributes' | 'resource'> & {
            attributes?: OtlpAttributes
          })[]
        }[]
      }[]
    }
    for (const resourceSpans of request.resourceSpans ?? []) {
      const resource = attributesOf(resourceSpans.resource?.attributes)
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          spans.push({ ...span, attributes: attributesOf(span.attributes), resource })
        }
      }
    }
  }
  return spans
}

const SPAN_KIND_SERVER = 2
const SPAN_KIND_CLIENT = 3
const STATUS_ERROR = 2
const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const CALLER_SPAN = '00f067aa0ba902b7'

/** The trace id, parent span id and flags of the traceparent the demo received. */
function traceOf(call: ReceivedCall) {
  const [, traceId, parentId, flags] = traceparentPattern.exec(call.traceparent ?? '') ?? []
  return { traceId, parentId, flags }
}

/** list → 3 companies → their financials and lookalikes → the lookalikes' names. */
const TRAVERSAL = `query Traversal($listId: Int!) {
  list(listId: $listId) {
    name
    companies(first: 3) {
      edges { node { name financials(first: 1) { nodes { endDate } } lookalikes(first: 2) { edges { score node { name } } } } }
    }
  }
}`
const ONE = 'query One($number: String!) { company(country: BE, number: $number) { name } }'

/** The stack's first STATIC list and its companies, from the demo's data. */
function demoSample(stack: Stack) {
  const list = stack.demo.data.lists.find((l) => l.type === 'STATIC' && l.amountOfCompanies > 20)
  if (!list) throw new Error('demo data has no STATIC list')
  const belgian = stack.demo.data.companies.filter((c) => c.country === 'BE')
  return { listId: list.id, numbers: belgian.map((c) => c.companyNumber) }
}

describe('startTelemetry', () => {
  it('without OTEL_EXPORTER_OTLP_ENDPOINT: a tracer that exports nothing', async () => {
    for (const env of [
      {},
      { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' },
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    ]) {
      const telemetry = startTelemetry(env)
      expect(telemetry.exporting).toBe(false)
      expect(telemetry.tracer).toBeDefined()
      await telemetry.shutdown()
    }
  })

  it('with OTEL_SDK_DISABLED=true: no tracer at all', () => {
    const telemetry = startTelemetry({
      OTEL_SDK_DISABLED: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    })
    expect(telemetry).toMatchObject({ tracer: undefined, exporting: false })
  })

  it('refuses a bad endpoint or protocol with a ConfigError naming the variable', () => {
    expect(() => startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(ConfigError)
    expect(() => startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    )
    expect(() =>
      startTelemetry({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).toThrow(/Invalid setting OTEL_EXPORTER_OTLP_PROTOCOL/)
  })
})

describe('without a collector (OTEL_EXPORTER_OTLP_ENDPOINT unset)', () => {
  let stack: Stack
  beforeAll(async () => {
    stack = await startStack()
  })

  it('sends a traceparent on every upstream call: one new trace per operation, not sampled', async () => {
    const { listId, numbers } = demoSample(stack)
    expect((await stack.post(TRAVERSAL, { listId })).body.errors).toBeUndefined()
    expect((await stack.post(ONE, { number: numbers[0] })).body.errors).toBeUndefined()
    const calls = stack.demo.calls()
    expect(calls.length).toBeGreaterThan(5)
    const traces = calls.map(traceOf)
    for (const { traceId, flags } of traces) {
      expect(traceId).toBeDefined()
      expect(flags).toBe('00')
    }
    // Two operations, two traces; each request its own parent span.
    expect(new Set(traces.map((t) => t.traceId)).size).toBe(2)
    expect(new Set(traces.map((t) => t.parentId)).size).toBe(calls.length)
    expect(collected).toHaveLength(0)
  })

  it("continues the caller's trace and passes its sampling decision and tracestate on", async () => {
    const { numbers } = demoSample(stack)
    for (const flags of ['01', '00']) {
      stack.demo.reset()
      const { body } = await stack.post(
        ONE,
        { number: numbers[1] },
        {
          authorization: 'Bearer demo-token',
          traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-${flags}`,
          tracestate: 'vendor=abc',
        },
      )
      expect(body.errors).toBeUndefined()
      const [call, ...others] = stack.demo.calls()
      expect(others).toHaveLength(0)
      expect(traceOf(call as ReceivedCall)).toMatchObject({ traceId: CALLER_TRACE, flags })
      expect(traceOf(call as ReceivedCall).parentId).not.toBe(CALLER_SPAN)
    }
    expect(collected).toHaveLength(0)
  })

  it('answers with no trace header of its own (docs/operations.md): the request id is what a page reads', async () => {
    const { numbers } = demoSample(stack)
    const response = await stack.request({
      headers: {
        authorization: 'Bearer demo-token',
        origin: 'https://app.example',
        traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
      },
      body: { query: ONE, variables: { number: numbers[1] } },
    })
    expect(response.status).toBe(200)
    const names = [...response.headers.keys()]
    expect(names.filter((name) => /trace|timing/.test(name))).toEqual([])
    expect(response.headers.get('x-request-id')).toBeTruthy()
    expect(response.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/i)
  })

  it('ignores a malformed traceparent: a new trace instead', async () => {
    const { numbers } = demoSample(stack)
    const { body } = await stack.post(
      ONE,
      { number: numbers[2] },
      { authorization: 'Bearer demo-token', traceparent: `00-${'0'.repeat(32)}-${CALLER_SPAN}-01` },
    )
    expect(body.errors).toBeUndefined()
    const [call] = stack.demo.calls()
    expect(call?.traceparent).toMatch(traceparentPattern)
    expect(traceOf(call as ReceivedCall).traceId).not.toBe('0'.repeat(32))
  })
})

describe('OTEL_SDK_DISABLED=true', () => {
  it('sends no traceparent', async () => {
    const stack = await startStack({}, { telemetry: startTelemetry({ OTEL_SDK_DISABLED: 'true' }) })
    const { numbers } = demoSample(stack)
    expect((await stack.post(ONE, { number: numbers[3] })).body.errors).toBeUndefined()
    const calls = stack.demo.calls()
    expect(calls).toHaveLength(1)
    expect(calls[0]?.traceparent).toBeUndefined()
  })
})

describe('with OTEL_EXPORTER_OTLP_ENDPOINT set (http/json)', () => {
  let spans: ExportedSpan[]
  let received: Export[]
  const calls: Record<string, ReceivedCall[]> = {}
  const responses: Record<string, unknown> = {}

  beforeAll(async () => {
    const firstExport = collected.length
    const telemetry = startTelemetry(
      { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      'telemetry-test',
    )
    expect(telemetry.exporting).toBe(true)
    const stack = await startStack({ upstreamMaxConnections: 64 }, { telemetry })
    const cached = stack.replica({ cacheTtlSeconds: 60 })
    const { demo } = stack
    // The start-up warm-up is no caller's operation: it makes no span.
    await stack.gateway.warm()
    const { listId, numbers } = demoSample(stack)
    const token = { authorization: 'Bearer demo-token' }
    /** One operation at a time, so each call the demo receives belongs to a known one. */
    const run = async (
      name: string,
      send: () => Promise<unknown>,
      before: () => void = () => {},
    ) => {
      demo.reset()
      before()
      responses[name] = await send()
      calls[name] = demo.calls()
    }
    await run(
      'Traversal',
      async () =>
        (
          await stack.post(
            TRAVERSAL,
            { listId },
            {
              ...token,
              traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
              tracestate: 'vendor=abc',
            },
          )
        ).body,
    )
    await run('Fresh', async () => (await stack.post(ONE, { number: numbers[0] })).body)
    await run('Fresh again', async () => (await stack.post(ONE, { number: numbers[1] })).body)
    await run(
      'Retried',
      async () => (await stack.post(ONE.replace('One', 'Retried'), { number: numbers[2] })).body,
      () => demo.inject({ path: /^\/v1\/companies\//, status: 503, times: 1 }),
    )
    await run(
      'Failing',
      async () => (await stack.post(ONE.replace('One', 'Failing'), { number: numbers[3] })).body,
      () => demo.inject({ path: /^\/v1\/companies\//, status: 500 }),
    )
    await run('Cached', async () => {
      const query = ONE.replace('One', 'Cached')
      await cached.post(query, { number: numbers[4] })
      return (await cached.post(query, { number: numbers[4] })).body
    })
    await run('Broken', async () => (await stack.post('query Broken { company(')).body)
    await run('Deferred', async () => {
      const response = await stack.gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...token },
        body: JSON.stringify({
          query: `query Deferred($number: String!) {
            company(country: BE, number: $number) { name ... @defer { financials(first: 1) { nodes { endDate } } } }
            ... @defer { missing: company(country: BE, number: "0123456749") { name } }
          }`,
          variables: { number: numbers[5] },
        }),
      })
      return response.text()
    })
    // Exports whatever the batch processor still holds.
    await telemetry.shutdown()
    received = collected.slice(firstExport)
    spans = spansOf(received)
  })

  const operation = (name: string) => spans.filter((span) => span.name === name)
  const only = (name: string) => {
    const [span, ...others] = operation(name)
    expect(others).toHaveLength(0)
    if (!span) throw new Error(`no span ${name}`)
    return span
  }
  const childrenOf = (parent: ExportedSpan) =>
    spans.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId)

  it('answers as without telemetry', () => {
    expect(responses.Traversal).toMatchObject({
      data: { list: { companies: { edges: expect.any(Array) } } },
    })
    expect(responses.Traversal).not.toHaveProperty('errors')
    expect(responses.Retried).not.toHaveProperty('errors')
    expect(responses.Failing).toMatchObject({
      errors: [{ extensions: { code: 'UPSTREAM_ERROR' } }],
    })
    expect(String(responses.Deferred)).toContain('"endDate"')
  })

  it('makes no span for the start-up warm-up', () => {
    expect(spans.map((span) => span.name)).not.toContain('query IntrospectionQuery')
    expect(operation('query')).toEqual([])
  })

  it('exports OTLP/HTTP JSON to <endpoint>/v1/traces with the service name', () => {
    expect(received.length).toBeGreaterThan(0)
    for (const { path, contentType } of received) {
      expect(path).toBe('/v1/traces')
      expect(contentType).toBe('application/json')
    }
    expect(new Set(spans.map((span) => span.resource['service.name']))).toEqual(
      new Set(['telemetry-test']),
    )
  })

  it("traces a traversal: the caller's trace, one child span per request the demo received", () => {
    const span = only('query Traversal')
    const sent = calls.Traversal ?? []
    expect(span).toMatchObject({
      traceId: CALLER_TRACE,
      parentSpanId: CALLER_SPAN,
      kind: SPAN_KIND_SERVER,
      attributes: {
        'graphql.operation.name': 'Traversal',
        'graphql.operation.type': 'query',
        'gateway.upstream.calls': sent.length,
      },
    })
    expect(span.attributes['gateway.request_id']).toEqual(expect.any(String))
    expect(span.attributes['graphql.error.codes']).toBeUndefined()
    const children = childrenOf(span)
    expect(children).toHaveLength(sent.length)
    // Each request the demo received names its own span as parent, with the caller's trace id,
    // sampling flag and tracestate.
    expect(sent.map((call) => traceOf(call).parentId).sort()).toEqual(
      children.map((child) => child.spanId).sort(),
    )
    for (const call of sent) {
      expect(traceOf(call)).toMatchObject({ traceId: CALLER_TRACE, flags: '01' })
      expect(call.requestId).toBe(span.attributes['gateway.request_id'])
    }
    expect(new Set(children.map((child) => child.attributes['url.template']))).toEqual(
      new Set([
        '/v1/lists/{id}',
        '/v1/lists/{id}/companies',
        '/v1/companies/{countryCode}/{companyNumber}/financials',
        '/v1/companies/{countryCode}/{companyNumber}/lookalikes',
      ]),
    )
    for (const child of children) {
      expect(child).toMatchObject({
        kind: SPAN_KIND_CLIENT,
        name: `GET ${child.attributes['url.template']}`,
        attributes: {
          'http.request.method': 'GET',
          'http.response.status_code': 200,
          'gateway.upstream.attempt': 1,
          'gateway.cache': 'off',
        },
      })
      expect(child.status?.code ?? 0).not.toBe(STATUS_ERROR)
      // No company number, list id or query text in any attribute.
      expect(JSON.stringify(child.attributes)).not.toMatch(/\d{6,}|listId|\?/)
    }
  })

  it('starts a new trace per operation when the caller sends no traceparent', () => {
    const fresh = operation('query One')
    expect(fresh).toHaveLength(2)
    const traceIds = fresh.map((span) => span.traceId)
    expect(new Set(traceIds).size).toBe(2)
    expect(traceIds).not.toContain(CALLER_TRACE)
    const sent = [...(calls.Fresh ?? []), ...(calls['Fresh again'] ?? [])]
    for (const span of fresh) {
      expect(span.parentSpanId || undefined).toBeUndefined()
      const [child, ...others] = childrenOf(span)
      expect(others).toHaveLength(0)
      expect(sent.map((call) => call.traceparent)).toContain(
        `00-${span.traceId}-${child?.spanId}-01`,
      )
    }
  })

  it('records a failed request and its retry as two spans', () => {
    const span = only('query Retried')
    expect(span.attributes['gateway.upstream.calls']).toBe(2)
    const [failed, retried] = childrenOf(span).sort(
      (a, b) =>
        Number(a.attributes['gateway.upstream.attempt']) -
        Number(b.attributes['gateway.upstream.attempt']),
    )
    expect(failed).toMatchObject({
      status: { code: STATUS_ERROR },
      attributes: {
        'error.type': 'UPSTREAM_ERROR',
        'http.response.status_code': 503,
        'gateway.upstream.attempt': 1,
      },
    })
    expect(retried?.attributes).toMatchObject({
      'gateway.upstream.attempt': 2,
      'http.request.resend_count': 1,
      'http.response.status_code': 200,
    })
    expect(calls.Retried?.map((call) => traceOf(call).parentId).sort()).toEqual(
      [failed?.spanId, retried?.spanId].sort(),
    )
  })

  it('records the error codes of an operation that failed', () => {
    const span = only('query Failing')
    expect(span.attributes['graphql.error.codes']).toEqual(['UPSTREAM_ERROR'])
    // `{ company: null }` and the error: data with errors (partial), not a failed operation.
    expect(span.status?.code ?? 0).not.toBe(STATUS_ERROR)
    expect(childrenOf(span)).toHaveLength(1)
  })

  it('counts reads the cache served on the operation span, with no upstream span for them', () => {
    const [first, second, ...others] = operation('query Cached').sort((a, b) =>
      a.startTimeUnixNano.localeCompare(b.startTimeUnixNano),
    )
    expect(others).toHaveLength(0)
    expect(first?.attributes).toMatchObject({
      'gateway.cache.miss': 1,
      'gateway.upstream.calls': 1,
    })
    expect(childrenOf(first as ExportedSpan)[0]?.attributes['gateway.cache']).toBe('miss')
    expect(second?.attributes).toMatchObject({ 'gateway.cache.hit': 1 })
    expect(second?.attributes['gateway.upstream.calls']).toBeUndefined()
    expect(childrenOf(second as ExportedSpan)).toHaveLength(0)
    expect(calls.Cached).toHaveLength(1)
  })

  it('traces a refused operation under its fallback name, as failed', () => {
    expect(responses.Broken).toMatchObject({
      errors: [{ message: expect.stringContaining('Syntax') }],
    })
    const span = only('graphql.operation')
    expect(span.status?.code).toBe(STATUS_ERROR)
    expect(childrenOf(span)).toHaveLength(0)
    expect(calls.Broken).toHaveLength(0)
  })

  it('covers a streamed (@defer) result: the deferred parts’ calls and errors are its own', () => {
    const span = only('query Deferred')
    // The deferred part's error is the operation's.
    expect(span.attributes['graphql.error.codes']).toEqual(['NOT_FOUND'])
    const children = childrenOf(span)
    const sent = calls.Deferred ?? []
    expect(sent.length).toBeGreaterThan(0)
    expect(children).toHaveLength(sent.length)
    expect(span.attributes['gateway.upstream.calls']).toBe(sent.length)
    for (const call of sent) expect(traceOf(call).traceId).toBe(span.traceId)
  })
})

describe('a streamed (@defer) result', () => {
  it('keeps its operation span open until the last part, after every part’s upstream call', async () => {
    // Spans as they end, in that order: no clock is compared (an exported span's times are
    // anchored on a whole millisecond, too coarse to order two ends).
    const ended: ReadableSpan[] = []
    const provider = new BasicTracerProvider({
      spanProcessors: [
        {
          onStart: () => {},
          onEnd: (span) => ended.push(span),
          forceFlush: () => Promise.resolve(),
          shutdown: () => Promise.resolve(),
        },
      ],
    })
    const stack = await startStack(
      {},
      {
        telemetry: {
          tracer: provider.getTracer('test'),
          exporting: true,
          shutdown: () => provider.shutdown(),
        },
      },
    )
    const list = stack.demo.data.lists[1]
    if (!list) throw new Error('demo data lacks a second list')
    const held = stack.demo.hold(`/v1/lists/${list.id}`)
    const response = await stack.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'multipart/mixed',
        authorization: 'Bearer demo-token',
      },
      body: JSON.stringify({
        query: `query Deferred { lists(first: 1) { totalCount } ... @defer { list(listId: ${list.id}) { name } } }`,
      }),
    })
    const reader = response.body?.getReader()
    if (!reader) throw new Error('no body')
    const decoder = new TextDecoder()
    let text = ''
    const readUntil = async (done: () => boolean) => {
      while (!done()) {
        const chunk = await reader.read()
        if (chunk.done) return
        text += decoder.decode(chunk.value, { stream: true })
      }
    }
    await readUntil(() => text.includes('"hasNext":true'))
    // The first part is out, the deferred part's read is held upstream: the span is still open.
    await stack.demo.waitForCalls((received) => received.length === 2)
    expect(ended.map((span) => span.name)).toEqual(['GET /v1/lists'])
    held.release()
    await readUntil(() => false)
    expect(text).toContain(`"name":${JSON.stringify(list.name)}`)
    expect(ended.map((span) => span.name)).toEqual([
      'GET /v1/lists',
      'GET /v1/lists/{id}',
      'query Deferred',
    ])
    const operation = ended[2]
    for (const call of ended.slice(0, 2)) {
      expect(call.parentSpanContext?.spanId).toBe(operation?.spanContext().spanId)
    }
  })
})

describe('with OTEL_EXPORTER_OTLP_ENDPOINT set and no protocol', () => {
  it('exports protobuf', async () => {
    const firstExport = collected.length
    const telemetry = startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: `${collectorUrl}/` })
    const stack = await startStack({}, { telemetry })
    const { numbers } = demoSample(stack)
    const { body } = await stack.post(ONE.replace('One', 'Proto'), { number: numbers[6] })
    expect(body.errors).toBeUndefined()
    expect(stack.demo.calls()[0]?.traceparent).toMatch(traceparentPattern)
    await telemetry.shutdown()
    const received = collected.slice(firstExport)
    expect(received.length).toBeGreaterThan(0)
    for (const { path, contentType, body } of received) {
      expect(path).toBe('/v1/traces')
      expect(contentType).toBe('application/x-protobuf')
      // The span names are in the protobuf as plain strings.
      expect(body.toString('latin1')).toContain('query Proto')
    }
  })
})
