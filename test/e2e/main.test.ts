import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Script } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { DemoUpstream } from '../../src/demo-upstream/server.js'
import { GRAPHIQL_TABS } from '../../src/http/graphiql.js'
import { claes, companyArgs, demoData } from '../support/fixtures.js'
import { startGateway } from '../support/gateway-process.js'
import { freePort } from '../support/process.js'

/**
 * The gateway process as operators start it: settings from the environment, a real port. A bad
 * setting stops it with one line; without UPSTREAM_URL it serves the embedded demo upstream, with
 * it the given upstream, with the caller's token.
 */

describe('a bad setting', () => {
  it('stops start-up on a bad setting with one line and no stack trace', async () => {
    const run = startGateway({ PORT: 'abc' })
    expect(await run.exited).toBe(1)
    const { stderr } = run.output()
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(/^Invalid setting PORT/)
  })

  it('stops start-up on an API keys file with a bad entry, with one line naming AUTH_API_KEYS_FILE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-keys-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const keys = join(dir, 'keys.json')
    writeFileSync(keys, JSON.stringify({ alice: 'alice-key-in-clear' }))
    const run = startGateway({ PORT: String(await freePort()), AUTH_API_KEYS_FILE: keys })
    expect(await run.exited).toBe(1)
    const { stderr } = run.output()
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^Invalid setting AUTH_API_KEYS_FILE: .*64 hex digits.*\(at "alice"\)$/,
      ),
    ])
  })
})

describe('without UPSTREAM_URL', () => {
  const n = claes.companyNumber
  const dotted = `${n.slice(0, 4)}.${n.slice(4, 7)}.${n.slice(7)}`

  it('serves GraphiQL, health, readiness and demo data, and drains on SIGTERM', async () => {
    const port = await freePort()
    const run = startGateway({ PORT: String(port) })
    await run.ready
    expect(run.output().stdout).toContain('embedded demo upstream')
    const base = `http://127.0.0.1:${port}`
    expect((await fetch(`${base}/health`)).status).toBe(200)
    expect((await fetch(`${base}/ready`)).status).toBe(200)
    await expectGraphiQL(`${base}/graphql`)
    const answer = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          // The number as people write it, dots and all.
          `{ company(country: BE, number: "${dotted}") { name financials(first: 1) { totalCount } } }`,
      }),
    })
    const viaGet = await fetch(
      `${base}/graphql?query=${encodeURIComponent('{ lists(first: 1) { totalCount } }')}`,
      {
        headers: { accept: 'application/graphql-response+json' },
      },
    )
    expect(((await viaGet.json()) as { data: unknown }).data).toEqual({
      lists: { totalCount: demoData.lists.length },
    })
    const body = (await answer.json()) as {
      data: { company: { name: string; financials: { totalCount: number } } }
    }
    expect(body.data.company.name).toBe(claes.name)
    expect(body.data.company.financials.totalCount).toBeGreaterThan(0)

    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(0)
  })
})

describe('with UPSTREAM_URL', () => {
  const upstream = new DemoUpstream({ data: demoData, tokens: ['caller-token'] })
  let url = ''
  beforeAll(async () => {
    url = await upstream.start()
  })
  afterAll(() => upstream.stop())

  it('never starts the demo and reads the given upstream with the caller’s token', async () => {
    const port = await freePort()
    const run = startGateway({ PORT: String(port), UPSTREAM_URL: url })
    await run.ready
    expect(run.output().stdout).not.toContain('embedded demo upstream')
    const answer = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer caller-token' },
      body: JSON.stringify({ query: `{ company(${companyArgs(claes)}) { name } }` }),
    })
    expect(await answer.json()).toEqual({
      data: { company: { name: claes.name } },
      extensions: { cost: { estimated: 1, upstreamCalls: 1, limit: 1000, cacheHits: 0 } },
    })
    expect(upstream.calls().map((c) => c.token)).toEqual(['caller-token'])
    // Callers bring their own token here: GraphiQL's headers editor says where it goes.
    const page = await expectGraphiQL(`http://127.0.0.1:${port}/graphql`)
    expect(page).toContain('Bearer <your upstream token>')
  })
})

/**
 * Loads GraphiQL as a browser would, without one: the page over HTTP, every script it holds
 * compiled as JavaScript, nothing fetched from another host (it must work offline), and the
 * tabs it opens with. Returns the page.
 */
async function expectGraphiQL(address: string) {
  const page = await fetch(address, { headers: { accept: 'text/html' } })
  expect(page.status).toBe(200)
  expect(page.headers.get('content-type')).toContain('text/html')
  const html = await page.text()
  expect(html).toContain('<title>Company data gateway</title>')
  expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//)
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '')
  expect(scripts.length).toBeGreaterThan(0)
  for (const script of scripts) expect(() => new Script(script)).not.toThrow()
  const options = /renderYogaGraphiQL\(\s*[^,]+,\s*(\{[\s\S]*\}),?\s*\);\s*$/.exec(
    scripts.at(-1) ?? '',
  )
  const { defaultTabs } = JSON.parse(options?.[1] ?? 'null') as { defaultTabs: { query: string }[] }
  expect(defaultTabs.map((tab) => tab.query)).toEqual(GRAPHIQL_TABS.map((tab) => tab.query))
  return html
}
