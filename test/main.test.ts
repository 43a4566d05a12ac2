import { type ChildProcess, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Script } from 'node:vm'
import { Agent, fetch as undiciFetch } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { ConfigError, loadConfig } from '../src/config.js'
import { DemoUpstream } from '../src/demo-upstream/server.js'
import { GRAPHIQL_TABS } from '../src/graphiql.js'
import { freePort, root, startEntry } from './support/process.js'

/** The process as operators run it: settings from the environment, a real port, signals. */

const running: ChildProcess[] = []
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL')
})

/** Starts src/main.ts with these settings; `ready` resolves once it logged that it listens. */
function start(env: Record<string, string>) {
  const started = startEntry('src/main.ts', env, 'Gateway ready')
  running.push(started.child)
  return started
}

describe('settings', () => {
  it('has the defaults of the runtime contract', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: '127.0.0.1',
      upstreamUrl: undefined,
      upstreamToken: undefined,
      upstreamLanguageHeader: 'Accept-Language',
      upstreamTimeoutMs: 10_000,
      upstreamMaxConnections: 32,
      upstreamMaxResponseBytes: 33_554_432,
      maxOperationCost: 1000,
      maxResultObjects: 20_000,
      maxDepth: 16,
      maxAliases: 30,
      maxBodyBytes: 102_400,
      operationTimeoutMs: 30_000,
      logLevel: 'info',
      cacheTtlSeconds: 300,
      cacheStaleSeconds: 3600,
      cacheMaxBytes: 67_108_864,
      redisUrl: undefined,
      upstreamRateLimit: undefined,
      shutdownTimeoutMs: 10_000,
      persistedDocuments: undefined,
      persistedDocumentsOnly: false,
      graphiql: true,
      gatewaySecret: expect.any(String),
      gatewaySecretIsDefault: true,
      production: false,
    })
  })

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['UPSTREAM_URL', 'not a url'],
    ['UPSTREAM_URL', 'ftp://files.example.test'],
    ['REDIS_URL', 'http://redis.example.test'],
    ['CACHE_TTL_SECONDS', '-1'],
    ['UPSTREAM_RATE_LIMIT', '0'],
    ['GRAPHIQL', 'no'],
    ['PERSISTED_DOCUMENTS_ONLY', 'yes'],
    ['SHUTDOWN_TIMEOUT_MS', '0'],
    ['UPSTREAM_TIMEOUT_MS', '0'],
    ['UPSTREAM_MAX_CONNECTIONS', '-3'],
    ['MAX_OPERATION_COST', '1.5'],
    ['MAX_RESULT_OBJECTS', '0'],
    ['LOG_LEVEL', 'verbose'],
    ['UPSTREAM_LANGUAGE_HEADER', 'bad header'],
    ['OPERATION_TIMEOUT_MS', 'soon'],
    ['GATEWAY_SECRET', 'short'],
  ])('refuses %s=%s with one line naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`^Invalid setting ${name}: [^\\n]+$`),
    )
  })

  it('stops start-up on a bad setting with one line and no stack trace', async () => {
    const run = start({ PORT: 'abc' })
    expect(await run.exited).toBe(1)
    const { stderr } = run.output()
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(/^Invalid setting PORT/)
  })
})

describe('npm start without UPSTREAM_URL', () => {
  it('serves GraphiQL, health, readiness and demo data, and drains on SIGTERM', async () => {
    const port = await freePort()
    const run = start({ PORT: String(port) })
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
          '{ company(country: BE, number: "0922.178.703") { name financials(first: 1) { totalCount } } }',
      }),
    })
    const viaGet = await fetch(
      `${base}/graphql?query=${encodeURIComponent('{ lists(first: 1) { totalCount } }')}`,
      {
        headers: { accept: 'application/graphql-response+json' },
      },
    )
    expect(((await viaGet.json()) as { data: unknown }).data).toEqual({ lists: { totalCount: 10 } })
    const body = (await answer.json()) as {
      data: { company: { name: string; financials: { totalCount: number } } }
    }
    expect(body.data.company.name).toBe('Brasserie Claes SA')
    expect(body.data.company.financials.totalCount).toBeGreaterThan(0)

    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(0)
  })
})

describe('with UPSTREAM_URL', () => {
  const upstream = new DemoUpstream({ tokens: ['caller-token'] })
  let url = ''
  beforeAll(async () => {
    url = await upstream.start()
  })
  afterAll(() => upstream.stop())

  it('never starts the demo and reads the given upstream with the caller’s token', async () => {
    const port = await freePort()
    const run = start({ PORT: String(port), UPSTREAM_URL: url })
    await run.ready
    expect(run.output().stdout).not.toContain('embedded demo upstream')
    const answer = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer caller-token' },
      body: JSON.stringify({ query: '{ company(country: BE, number: "0922178703") { name } }' }),
    })
    expect(await answer.json()).toEqual({
      data: { company: { name: 'Brasserie Claes SA' } },
      extensions: { cost: { estimated: 1, upstreamCalls: 1, limit: 1000, cacheHits: 0 } },
    })
    expect(upstream.calls().map((c) => c.token)).toEqual(['caller-token'])
    // Callers bring their own token here: GraphiQL's headers editor says where it goes.
    const page = await expectGraphiQL(`http://127.0.0.1:${port}/graphql`)
    expect(page).toContain('Bearer <your upstream token>')
  })
})

describe('drain on SIGTERM', () => {
  const upstream = new DemoUpstream({ tokens: ['caller-token'] })
  let url = ''
  beforeAll(async () => {
    url = await upstream.start()
  })
  afterAll(() => upstream.stop())
  afterEach(() => upstream.reset())
  const query = JSON.stringify({ query: '{ lists(first: 1) { totalCount } }' })
  const headers = { 'content-type': 'application/json', authorization: 'Bearer caller-token' }

  it('finishes the operation in flight on its keep-alive connection, closes it, refuses new ones and exits 0', async () => {
    const port = await freePort()
    const run = start({ PORT: String(port), UPSTREAM_URL: url, SHUTDOWN_TIMEOUT_MS: '20000' })
    await run.ready
    const agent = new Agent({ keepAliveTimeout: 60_000 })
    const base = `http://127.0.0.1:${port}`
    // An idle keep-alive connection, and a busy one whose operation the upstream holds.
    await (await undiciFetch(`${base}/health`, { dispatcher: agent })).text()
    const held = upstream.hold('/v1/lists')
    const busy = undiciFetch(`${base}/graphql`, {
      method: 'POST',
      headers,
      body: query,
      dispatcher: agent,
    })
    await upstream.waitForCalls((calls) => calls.length === 1)
    run.child.kill('SIGTERM')
    await vi.waitFor(() => expect(run.output().stdout).toContain('draining'))
    // An impatient second signal changes nothing.
    run.child.kill('SIGTERM')
    // No new connection is taken.
    await expect(fetch(`${base}/health`)).rejects.toThrow()
    held.release()
    const answer = await busy
    expect(answer.status).toBe(200)
    expect(answer.headers.get('connection')).toBe('close')
    expect(await answer.json()).toMatchObject({ data: { lists: { totalCount: 10 } } })
    expect(await run.exited).toBe(0)
    expect(run.output().stdout).toContain('"msg":"drained"')
    await agent.close()
  })

  it('exits 0 at SHUTDOWN_TIMEOUT_MS when an operation is still running, cutting it', async () => {
    const port = await freePort()
    const run = start({ PORT: String(port), UPSTREAM_URL: url, SHUTDOWN_TIMEOUT_MS: '300' })
    await run.ready
    const held = upstream.hold('/v1/lists')
    const stuck = fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers,
      body: query,
    })
      .then(() => 'answered')
      .catch(() => 'cut')
    await upstream.waitForCalls((calls) => calls.length === 1)
    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(0)
    // The upstream still holds the read: the process did not wait for it.
    expect(await stuck).toBe('cut')
    expect(run.output().stdout).toContain('SHUTDOWN_TIMEOUT_MS reached')
    held.release()
  })
})

describe('the production build', () => {
  const dist = new URL('dist/', root)
  beforeAll(() => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
    const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root })
    expect(build.status, String(build.stdout)).toBe(0)
  }, 120_000)

  it('imports nothing from the dev dependencies: `npm ci --omit=dev` is enough to run it', () => {
    const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      dependencies: Record<string, string>
    }
    const imported = new Set<string>()
    for (const file of readdirSync(dist, { recursive: true }) as string[]) {
      if (!file.endsWith('.js')) continue
      const code = readFileSync(new URL(file, dist), 'utf8')
      for (const [, specifier = ''] of code.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        if (specifier.startsWith('.') || specifier.startsWith('node:')) continue
        const parts = specifier.split('/')
        imported.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? ''))
      }
    }
    expect(imported.size).toBeGreaterThan(5)
    for (const name of imported) expect(Object.keys(manifest.dependencies)).toContain(name)
  })

  it('npm start serves the built dist/ without building again, and drains on SIGTERM', async () => {
    const builtAt = statSync(new URL('.tsbuildinfo', dist)).mtimeMs
    const port = await freePort()
    const started = startEntry('scripts/start.mjs', { PORT: String(port) }, 'Gateway ready')
    running.push(started.child)
    await started.ready
    const answer = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ lists(first: 1) { totalCount } }' }),
    })
    expect(await answer.json()).toMatchObject({ data: { lists: { totalCount: 10 } } })
    started.child.kill('SIGTERM')
    expect(await started.exited).toBe(0)
    // dist/ was current: nothing was compiled.
    expect(statSync(new URL('.tsbuildinfo', dist)).mtimeMs).toBe(builtAt)
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
