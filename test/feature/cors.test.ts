import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { claes, companyArgs } from '../support/fixtures.js'
import { metricsOf } from '../support/metrics.js'
import { type Answer, type Client, demoToken, startStack } from '../support/stack.js'

/**
 * CORS_ORIGINS (contract/runtime.md): which browser origins may call and read the answer, never
 * with credentials; unset, any origin in development and with the demo, none in production. A
 * preflight is answered before anything runs and is no operation.
 */

const UPSTREAM_URL = 'https://api.example.test'
const query = `{ company(${companyArgs(claes)}) { name } }`

const fromOrigin = (client: Client, origin: string) =>
  client.request({
    headers: { accept: 'application/json', origin, ...demoToken },
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
  const stack = await startStack({
    corsOrigins: loadConfig({ NODE_ENV: 'production', UPSTREAM_URL }).corsOrigins,
  })
  const origin = 'https://anywhere.example.test'

  it('sends no CORS header, so browsers keep the answer from other origins', async () => {
    const answer = await fromOrigin(stack, origin)
    expect(answer.status).toBe(200)
    expectNoCors(answer)
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
      expectAllowed(await fromOrigin(stack, origin), origin)
      expectAllowed(await preflight(stack, origin), origin)
    }
  })

  it.each([
    'https://c.example.test',
    'https://a.example.test.evil.test',
    'http://a.example.test',
    'null',
  ])('gives %s no CORS header at all', async (origin) => {
    expectNoCors(await fromOrigin(stack, origin))
    const answer = await preflight(stack, origin)
    expect(answer.status).toBe(204)
    expectNoCors(answer)
  })
})
