import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setImmediate as tick } from 'node:timers/promises'
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream'
import { trace } from '@opentelemetry/api'
import { GraphQLError } from 'graphql'
import { createSchema, createYoga } from 'graphql-yoga'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../src/config.js'
import {
  ATTR_GATEWAY_CACHE,
  recordCacheRead,
  startTelemetry,
  type Telemetry,
  traceUpstreamCall,
  useOperationTracing,
} from '../src/telemetry.js'

/**
 * Traces end to end on loopback: a stub OTLP/HTTP receiver, a yoga server whose resolvers call
 * a stub upstream through traceUpstreamCall, and W3C traceparent from the caller, through the
 * operation's span, to the upstream. The global tracer provider is registered by one describe
 * at a time: shutdown() unregisters it.
 */

const servers: Server[] = []

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler)
  servers.push(server)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
})

/** The stub OTLP receiver: every POST, with its path, content type and body. */
interface Export {
  path: string
  contentType: string
  body: Buffer
}
const collected: Export[] = []
let collectorUrl: string

/** The stub upstream: the trace headers of every request; `/fail` answers 503. */
interface UpstreamHit {
  path: string
  traceparent: string | undefined
  tracestate: string | undefined
}
const upstreamHits: UpstreamHit[] = []
let upstreamUrl: string

const TEMPLATE = '/v1/companies/{countryCode}/{companyNumber}'

class UpstreamFailure extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
  ) {
    super(`upstream answered ${status}`)
  }
}

/** What a resolver's read does in the gateway: one traced HTTP request upstream. */
async function read(number: string, attempt = 1): Promise<string> {
  // A hop or two, as a DataLoader batch would take: the context must survive them.
  await tick()
  const headers: Record<string, string> = { accept: 'application/json' }
  return traceUpstreamCall(TEMPLATE, attempt, headers, async (span) => {
    const response = await request(`${upstreamUrl}/v1/companies/BE/${number}`, { headers })
    span.setAttribute('http.response.status_code', response.statusCode)
    span.setAttribute(ATTR_GATEWAY_CACHE, 'miss')
    const text = await response.body.text()
    if (response.statusCode !== 200)
      throw new UpstreamFailure('UPSTREAM_ERROR', response.statusCode)
    return text
  })
}

const schema = createSchema({
  typeDefs: /* GraphQL */ `
    type Query {
      company(number: String!): String
      retried(number: String!): String
      cached: String
    }
  `,
  resolvers: {
    Query: {
      company: async (_: unknown, { number }: { number: string }) => {
        try {
          return await read(number)
        } catch (error) {
          throw new GraphQLError('upstream failed', {
            extensions: { code: (error as UpstreamFailure).code ?? 'INTERNAL' },
          })
        }
      },
      retried: (_: unknown, { number }: { number: string }) => read(number, 2),
      cached: () => {
        recordCacheRead('hit')
        recordCacheRead('hit')
        recordCacheRead('shared')
        return 'from the cache'
      },
    },
  },
})

let gatewayUrl: string

beforeAll(async () => {
  collectorUrl = await listen((req, res) => {
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
  upstreamUrl = await listen((req, res) => {
    const header = (name: string) => {
      const value = req.headers[name]
      return Array.isArray(value) ? value[0] : value
    }
    upstreamHits.push({
      path: req.url ?? '',
      traceparent: header('traceparent'),
      tracestate: header('tracestate'),
    })
    const failing = req.url?.endsWith('/fail')
    res.writeHead(failing ? 503 : 200, { 'content-type': 'application/json' })
    res.end(failing ? '{"error":"down"}' : '{"name":"ACME"}')
  })
  const yoga = createYoga({
    schema,
    plugins: [useOperationTracing(), useDeferStream()],
    logging: false,
  })
  gatewayUrl = `${await listen(yoga)}/graphql`
})

/** Sends one GraphQL request to the gateway; the whole body, parsed unless it is multipart. */
async function gql(query: string, headers: Record<string, string> = {}) {
  const response = await request(gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  })
  const text = await response.body.text()
  const multipart = String(response.headers['content-type']).startsWith('multipart/')
  return { status: response.statusCode, body: multipart ? text : JSON.parse(text) }
}

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

const record = (attributes: OtlpAttributes) =>
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
      const resource = record(resourceSpans.resource?.attributes)
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          spans.push({ ...span, attributes: record(span.attributes), resource })
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

describe('with OTEL_EXPORTER_OTLP_ENDPOINT unset', () => {
  it('sets nothing up', () => {
    expect(startTelemetry({})).toBeUndefined()
    expect(startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined()
    expect(startTelemetry({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBeUndefined()
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

  it('leaves the API calls working as no-ops: no span, no traceparent sent upstream', async () => {
    const headers: Record<string, string> = {}
    const value = await traceUpstreamCall(TEMPLATE, 1, headers, async (span) => {
      span.setAttribute('http.response.status_code', 200)
      expect(span.isRecording()).toBe(false)
      return 42
    })
    expect(value).toBe(42)
    expect(headers).toEqual({})
    await expect(
      traceUpstreamCall(TEMPLATE, 1, {}, () => Promise.reject(new Error('down'))),
    ).rejects.toThrow('down')
    recordCacheRead('hit')
    expect(trace.getActiveSpan()).toBeUndefined()

    const before = upstreamHits.length
    const { body } = await gql('query Off { company(number: "0403170701") }', {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    })
    expect(body).toEqual({ data: { company: '{"name":"ACME"}' } })
    expect(upstreamHits.slice(before)).toEqual([
      { path: '/v1/companies/BE/0403170701', traceparent: undefined, tracestate: undefined },
    ])
    expect(collected).toHaveLength(0)
  })
})

describe('with OTEL_EXPORTER_OTLP_ENDPOINT set (http/json)', () => {
  const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
  const CALLER_SPAN = '00f067aa0ba902b7'
  let spans: ExportedSpan[]
  let hits: UpstreamHit[]
  let received: Export[]
  let telemetry: Telemetry | undefined
  const responses: unknown[] = []

  beforeAll(async () => {
    const firstExport = collected.length
    const firstHit = upstreamHits.length
    telemetry = startTelemetry(
      { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      'telemetry-test',
    )
    expect(telemetry).toBeDefined()
    // Sequentially, so each upstream hit belongs to a known operation.
    responses.push(
      (
        await gql('query Continued { company(number: "0403170701") }', {
          traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
          tracestate: 'vendor=abc',
        })
      ).body,
    )
    responses.push((await gql('query Fresh { company(number: "0403170702") }')).body)
    responses.push((await gql('query Fresh { company(number: "0403170703") }')).body)
    responses.push(
      (await gql('query Failing { company(number: "fail") cached retried(number: "1") }')).body,
    )
    responses.push((await gql('query Broken { company(')).body)
    responses.push(
      (
        await gql(
          'query Deferred { first: company(number: "11") ... @defer { second: company(number: "12") } }',
          { accept: 'multipart/mixed' },
        )
      ).body,
    )
    hits = upstreamHits.slice(firstHit)
    // Exports whatever the batch processor still holds, then unregisters the provider.
    await telemetry?.shutdown()
    received = collected.slice(firstExport)
    spans = spansOf(received)
  })

  const operation = (name: string) => spans.filter((span) => span.name === name)
  const childrenOf = (parent: ExportedSpan) =>
    spans.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId)

  it('answers as without telemetry', () => {
    expect(responses[0]).toEqual({ data: { company: '{"name":"ACME"}' } })
    expect(responses[3]).toMatchObject({
      data: { company: null, cached: 'from the cache', retried: '{"name":"ACME"}' },
      errors: [{ extensions: { code: 'UPSTREAM_ERROR' } }],
    })
    expect(String(responses[5])).toContain('"second":"{\\"name\\":\\"ACME\\"}"')
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

  it("continues the caller's trace: its span is the operation span's parent", () => {
    const [span, ...others] = operation('query Continued')
    expect(others).toHaveLength(0)
    expect(span).toMatchObject({
      traceId: CALLER_TRACE,
      parentSpanId: CALLER_SPAN,
      kind: SPAN_KIND_SERVER,
      attributes: {
        'graphql.operation.name': 'Continued',
        'graphql.operation.type': 'query',
        'gateway.upstream.calls': 1,
      },
    })
    expect(span?.attributes['gateway.request_id']).toEqual(expect.any(String))
    expect(span?.attributes['graphql.error.codes']).toBeUndefined()
  })

  it('makes the upstream span a child of the operation span, with its attributes', () => {
    const [parent] = operation('query Continued')
    if (!parent) throw new Error('no operation span')
    const children = childrenOf(parent)
    expect(children).toHaveLength(1)
    expect(children[0]).toMatchObject({
      name: `GET ${TEMPLATE}`,
      kind: SPAN_KIND_CLIENT,
      attributes: {
        'url.template': TEMPLATE,
        'http.request.method': 'GET',
        'http.response.status_code': 200,
        'gateway.upstream.attempt': 1,
        'gateway.cache': 'miss',
      },
    })
    expect(children[0]?.status?.code ?? 0).not.toBe(STATUS_ERROR)
  })

  it("sends upstream a traceparent with the caller's trace id and the upstream span as parent", () => {
    const [parent] = operation('query Continued')
    if (!parent) throw new Error('no operation span')
    const [child] = childrenOf(parent)
    const hit = hits.find((h) => h.path === '/v1/companies/BE/0403170701')
    const [, traceId, parentId, flags] = traceparentPattern.exec(hit?.traceparent ?? '') ?? []
    expect(traceId).toBe(CALLER_TRACE)
    expect(parentId).toBe(child?.spanId)
    expect(flags).toBe('01')
    expect(hit?.tracestate).toBe('vendor=abc')
  })

  it('starts a new trace per operation when the caller sends no traceparent', () => {
    const fresh = operation('query Fresh')
    expect(fresh).toHaveLength(2)
    const traceIds = fresh.map((span) => span.traceId)
    expect(new Set(traceIds).size).toBe(2)
    expect(traceIds).not.toContain(CALLER_TRACE)
    for (const span of fresh) {
      expect(span.parentSpanId || undefined).toBeUndefined()
      const [child] = childrenOf(span)
      expect(child?.name).toBe(`GET ${TEMPLATE}`)
      const hit = hits.find(
        (h) => traceparentPattern.exec(h.traceparent ?? '')?.[2] === child?.spanId,
      )
      expect(hit?.traceparent).toBe(`00-${span.traceId}-${child?.spanId}-01`)
    }
  })

  it('records error codes, failed upstream requests, retries and cache reads', () => {
    const [span] = operation('query Failing')
    if (!span) throw new Error('no operation span')
    expect(span.attributes).toMatchObject({
      'graphql.error.codes': ['UPSTREAM_ERROR'],
      'gateway.cache.hit': 2,
      'gateway.cache.shared': 1,
      'gateway.upstream.calls': 2,
    })
    // Data with errors (partial) is not a failed operation.
    expect(span.status?.code ?? 0).not.toBe(STATUS_ERROR)
    const children = childrenOf(span)
    const failed = children.find((child) => child.attributes['http.response.status_code'] === 503)
    expect(failed).toMatchObject({
      status: { code: STATUS_ERROR },
      attributes: { 'error.type': 'UPSTREAM_ERROR', 'gateway.upstream.attempt': 1 },
    })
    const retried = children.find((child) => child.attributes['gateway.upstream.attempt'] === 2)
    expect(retried?.attributes['http.request.resend_count']).toBe(1)
  })

  it('traces a refused operation under its fallback name, as failed', () => {
    expect(responses[4]).toMatchObject({ errors: [{ message: expect.stringContaining('Syntax') }] })
    const [span, ...others] = operation('graphql.operation')
    expect(others).toHaveLength(0)
    expect(span?.status?.code).toBe(STATUS_ERROR)
    expect(childrenOf(span as ExportedSpan)).toHaveLength(0)
  })

  it('keeps the context through a streamed (@defer) result, ending the span with it', () => {
    const [span] = operation('query Deferred')
    if (!span) throw new Error('no operation span')
    const children = childrenOf(span)
    expect(children).toHaveLength(2)
    expect(span.attributes['gateway.upstream.calls']).toBe(2)
    const deferred = hits.filter((h) => /\/(11|12)$/.test(h.path))
    expect(deferred.map((h) => traceparentPattern.exec(h.traceparent ?? '')?.[1])).toEqual([
      span.traceId,
      span.traceId,
    ])
    // The operation span ended after its children (it covers the whole stream). Span times are
    // converted from fractional milliseconds, so two ends within the same microsecond may come
    // out in either order: a span that ended before the stream would be milliseconds early.
    const ends = (s: ExportedSpan) =>
      BigInt((s as unknown as { endTimeUnixNano: string }).endTimeUnixNano)
    for (const child of children) expect(ends(span) + 1000n >= ends(child)).toBe(true)
  })
})

describe('with OTEL_EXPORTER_OTLP_ENDPOINT set and no protocol', () => {
  it('exports protobuf, and may be started again after a shutdown', async () => {
    const firstExport = collected.length
    const telemetry = startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: `${collectorUrl}/` })
    expect(telemetry).toBeDefined()
    const before = upstreamHits.length
    await gql('query Proto { company(number: "0403170709") }')
    const [hit] = upstreamHits.slice(before)
    expect(hit?.traceparent).toMatch(traceparentPattern)
    await telemetry?.shutdown()
    const received = collected.slice(firstExport)
    expect(received.length).toBeGreaterThan(0)
    for (const { path, contentType, body } of received) {
      expect(path).toBe('/v1/traces')
      expect(contentType).toBe('application/x-protobuf')
      // The span names are in the protobuf as plain strings.
      expect(body.toString('latin1')).toContain('query Proto')
    }
    // Shut down: the API is a no-op again.
    const headers: Record<string, string> = {}
    await traceUpstreamCall(TEMPLATE, 1, headers, async () => undefined)
    expect(headers).toEqual({})
  })
})
