import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { claes, companyArgs } from '../support/fixtures.js'
import { metricsOf } from '../support/metrics.js'
import { serve } from '../support/serve.js'
import { type Answer, type Client, demoToken, startStack } from '../support/stack.js'

/**
 * CORS_ORIGINS (contract/runtime.md): which browser origins may call and read the answer, never
 * with credentials; unset, any origin in development and with the demo, none in production. A
 * preflight is answered before anything runs and is no operation.
 */

const UPSTREAM_URL = 'https://api.example.test'
const query = `{ company(${companyArgs(claes)}) { name } }`

/** A page's request, as a browser sends it (with `Sec-Fetch-Site`, unless none is given). */
const fromOrigin = (client: Client, origin: string, site?: string) =>
  client.request({
    headers: {
      accept: 'application/json',
      origin,
      ...demoToken,
      ...(site === undefined ? {} : { 'sec-fetch-site': site }),
    },
    body: { query },
  })

const preflight = (client: Client, origin: string) =>
  client.request({
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  })

/** The sum of gateway_operations_total over its statuses. */
const operations = async (client: Client) =>
  (await metricsOf(client))
    .split('\n')
    .filter((line) => line.startsWith('gateway_operations_total{'))
    .reduce((sum, line) => sum + Number(line.split(' ')[1]), 0)

function expectAllowed(answer: Answer, origin: string) {
  expect(answer.headers.get('access-control-allow-origin')).toBe(origin)
  expect(answer.headers.get('vary')).toMatch(/\bOrigin\b/)
  expect(answer.headers.get('access-control-allow-credentials')).toBeNull()
}

function expectNoCors(answer: Answer) {
  for (const name of answer.headers.keys()) expect(name).not.toMatch(/^access-control-/)
}

describe.each([
  ['development, CORS_ORIGINS unset', {}],
  ['the demo in production, CORS_ORIGINS unset', { NODE_ENV: 'production' }],
  ['production, CORS_ORIGINS=*', { NODE_ENV: 'production', UPSTREAM_URL, CORS_ORIGINS: '*' }],
])('%s: any origin, never with credentials', async (_, env) => {
  const stack = await startStack({ corsOrigins: loadConfig(env).corsOrigins })
  const origin = 'https://anywhere.example.test'

  it('lets the page read the answer and X-Request-Id, without credentials', async () => {
    const answer = await fromOrigin(stack, origin)
    expect(answer.json().data).toEqual({ company: { name: claes.name } })
    expectAllowed(answer, origin)
    expect(answer.headers.get('access-control-expose-headers')).toContain('X-Request-Id')
  })

  it('answers a preflight 204, with the methods and headers asked, and counts no operation', async () => {
    const before = await operations(stack)
    const answer = await preflight(stack, origin)
    expect(answer.status).toBe(204)
    expectAllowed(answer, origin)
    expect(answer.headers.get('access-control-allow-methods')).toBe('GET, POST')
    expect(answer.headers.get('access-control-allow-headers')).toBe('authorization, content-type')
    // CORS_MAX_AGE_SECONDS' default: the browser reuses this answer for 10 minutes.
    expect(answer.headers.get('access-control-max-age')).toBe('600')
    expect(await operations(stack)).toBe(before)
    expect(stack.demo.calls()).toEqual([])
  })

  it('never echoes the origin `null` (a sandboxed page or a file), request or preflight', async () => {
    expectNoCors(await fromOrigin(stack, 'null'))
    expectNoCors(await preflight(stack, 'null'))
  })

  it('adds nothing for a request without Origin (not a browser’s cross-origin call)', async () => {
    const answer = await stack.request({
      headers: { accept: 'application/json', ...demoToken },
      body: { query },
    })
    expect(answer.status).toBe(200)
    expectNoCors(answer)
  })
})

describe('production, CORS_ORIGINS unset: no origin', async () => {
  // The open mode: whoever gets a request through spends UPSTREAM_TOKEN.
  const stack = await startStack({
    corsOrigins: loadConfig({ NODE_ENV: 'production', UPSTREAM_URL }).corsOrigins,
    upstreamToken: DEMO_TOKEN,
    production: true,
  })
  const origin = 'https://anywhere.example.test'
  const get = (headers: Record<string, string>) =>
    stack.request({ path: `/graphql?query=${encodeURIComponent(query)}`, headers })
  const formPost = (headers: Record<string, string>) =>
    stack.request({
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: `query=${encodeURIComponent(query)}`,
    })

  // What a page of another origin makes a browser send without a preflight: CORS would only keep
  // the answer from the page, after the gateway had spent its token on it.
  it.each([
    ['a GET (fetch, no-cors)', () => get({ accept: '*/*', origin })],
    [
      'an <img>’s GET, which carries no Origin',
      () => get({ accept: 'image/*,*/*;q=0.8', 'sec-fetch-site': 'cross-site' }),
    ],
    ['a form’s POST', () => formPost({ accept: '*/*', origin, 'sec-fetch-site': 'cross-site' })],
    [
      'a form’s POST from a browser that sends no Sec-Fetch-Site',
      () => formPost({ accept: '*/*', origin }),
    ],
    [
      'a page of a sibling subdomain',
      () =>
        get({ accept: '*/*', origin: 'https://app.gateway.test', 'sec-fetch-site': 'same-site' }),
    ],
  ])('refuses %s: 403 ORIGIN_NOT_ALLOWED, no upstream call', async (_, send) => {
    const answer = await send()
    expect(answer.status).toBe(403)
    expect(answer.json().errors).toEqual([
      expect.objectContaining({ extensions: { code: 'ORIGIN_NOT_ALLOWED', retryable: false } }),
    ])
    expectNoCors(answer)
    expect(stack.demo.calls()).toEqual([])
  })

  // stack.request calls http://gateway.test.
  it.each([
    [
      'a page of its own (GraphiQL)',
      { 'sec-fetch-site': 'same-origin', origin: 'http://gateway.test' },
    ],
    [
      'a page of its own, from a browser that sends no Sec-Fetch-Site',
      { origin: 'http://gateway.test' },
    ],
    [
      'a page of its own behind a proxy that rewrote Host, by Sec-Fetch-Site',
      { 'sec-fetch-site': 'same-origin', origin: 'https://gw.example.test' },
    ],
    [
      '… or X-Forwarded-Host',
      { origin: 'https://gw.example.test', 'x-forwarded-host': 'gw.example.test' },
    ],
    [
      '… or Forwarded',
      {
        origin: 'https://gw.example.test',
        forwarded: 'for=192.0.2.1;host=gw.example.test;proto=https',
      },
    ],
    ['the user opening the URL', { 'sec-fetch-site': 'none' }],
    ['no browser (no Origin, no Sec-Fetch-Site)', {}],
  ])('answers %s', async (_, headers: Record<string, string>) => {
    const answer = await get({ accept: 'application/json', ...headers })
    expect(answer.json()).toEqual(
      expect.objectContaining({ data: { company: { name: claes.name } } }),
    )
    expect(stack.demo.calls()).toHaveLength(1)
  })

  it('answers a preflight 204 without CORS headers (the browser refuses), and counts no operation', async () => {
    const before = await operations(stack)
    const answer = await preflight(stack, origin)
    expect(answer.status).toBe(204)
    expectNoCors(answer)
    expect(await operations(stack)).toBe(before)
  })
})

describe.each([
  [
    'two origins',
    'https://a.example.test, https://b.example.test',
    ['https://a.example.test', 'https://b.example.test'],
  ],
  ['one origin', 'https://a.example.test', ['https://a.example.test']],
])('CORS_ORIGINS with %s: exactly those', async (_, setting, allowed) => {
  const stack = await startStack({
    corsOrigins: loadConfig({ NODE_ENV: 'production', UPSTREAM_URL, CORS_ORIGINS: setting })
      .corsOrigins,
  })

  it('allows each listed origin, echoed with Vary: Origin, without credentials', async () => {
    for (const origin of allowed) {
      const answer = await fromOrigin(stack, origin, 'cross-site')
      expect(answer.json().data).toEqual({ company: { name: claes.name } })
      expectAllowed(answer, origin)
      expectAllowed(await preflight(stack, origin), origin)
    }
  })

  it.each([
    'https://c.example.test',
    'https://a.example.test.evil.test',
    'http://a.example.test',
    'null',
  ])('gives %s no CORS header at all, and refuses its request', async (origin) => {
    const answer = await fromOrigin(stack, origin, 'cross-site')
    expect(answer.status).toBe(403)
    expectNoCors(answer)
    expect(stack.demo.calls()).toEqual([])
    const preflighted = await preflight(stack, origin)
    expect(preflighted.status).toBe(204)
    expectNoCors(preflighted)
  })
})

describe('CORS_MAX_AGE_SECONDS', async () => {
  const stack = await startStack({
    corsMaxAgeSeconds: loadConfig({ CORS_MAX_AGE_SECONDS: '30' }).corsMaxAgeSeconds,
  })
  const { url } = await serve(stack.gateway.yoga)

  it('is how long a preflight may be reused (Access-Control-Max-Age), over a real socket', async () => {
    const answer = await fetch(`${url}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.test', 'access-control-request-method': 'POST' },
    })
    expect(answer.status).toBe(204)
    expect(answer.headers.get('access-control-max-age')).toBe('30')
  })

  it('refuses a negative or fractional value at start', () => {
    expect(() => loadConfig({ CORS_MAX_AGE_SECONDS: '-1' })).toThrow(/CORS_MAX_AGE_SECONDS/)
    expect(() => loadConfig({ CORS_MAX_AGE_SECONDS: '1.5' })).toThrow(/CORS_MAX_AGE_SECONDS/)
  })
})
