import { type ChildProcess, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Script } from 'node:vm'
import { Agent, fetch as undiciFetch } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'
import { DemoUpstream } from '../../src/demo-upstream/server.js'
import { GRAPHIQL_TABS } from '../../src/http/graphiql.js'
import { freePort, root, startEntry } from '../support/process.js'

/** The process as operators run it: settings from the environment, a real port, signals. */

const running: ChildProcess[] = []
const sockets: Socket[] = []
const timers: NodeJS.Timeout[] = []
afterEach(() => {
  for (const timer of timers.splice(0)) clearInterval(timer)
  for (const socket of sockets.splice(0)) socket.destroy()
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

  it('closes a keep-alive connection whose streamed response began before SIGTERM as soon as the stream ends, and exits then', {
    timeout: 60_000,
  }, async () => {
    const port = await freePort()
    const run = start({ PORT: String(port), UPSTREAM_URL: url, SHUTDOWN_TIMEOUT_MS: '30000' })
    await run.ready
    const held = upstream.hold(/^\/v1\/lists\/[^/]+\/companies$/)
    const client = await rawConnection(port)
    client.socket.write(
      request('POST', '/graphql', {
        body: JSON.stringify({
          query:
            '{ lists(first: 1) { nodes { name ... @defer { companies(first: 2) { nodes { name } } } } } }',
        }),
        headers: { ...headers, accept: 'multipart/mixed' },
      }),
    )
    // The first part went out before the drain: its headers promised a keep-alive connection.
    await client.received((text) => text.includes('"hasNext":true'))
    expect(client.text()).toMatch(/^HTTP\/1\.1 200/)
    expect(client.text().toLowerCase()).toContain('connection: keep-alive')
    run.child.kill('SIGTERM')
    await vi.waitFor(() => expect(run.output().stdout).toContain('draining'))
    held.release()
    await client.received((text) => text.includes('"hasNext":false') && text.endsWith('0\r\n\r\n'))
    // Empty lines between requests keep the connection from idling out (RFC 9112 §2.2 lets a
    // client send them): waiting for Node's keep-alive timeout would now mean waiting for
    // SHUTDOWN_TIMEOUT_MS, so no clock is read here.
    timers.push(setInterval(() => client.socket.write('\r\n'), 500))
    await client.closed
    expect(await run.exited).toBe(0)
    expect(run.output().stdout).not.toContain('SHUTDOWN_TIMEOUT_MS reached')
    expect(run.output().stdout).toContain('"msg":"drained"')
  })

  it('closes connections with no request in flight when the drain starts (silent, partial headers, partial body) and still answers the complete one', {
    timeout: 60_000,
  }, async () => {
    const port = await freePort()
    const run = start({
      PORT: String(port),
      UPSTREAM_URL: url,
      SHUTDOWN_TIMEOUT_MS: '30000',
      UPSTREAM_TIMEOUT_MS: '120000',
    })
    await run.ready
    const silent = await rawConnection(port)
    const partialHeaders = await rawConnection(port)
    partialHeaders.socket.write('POST /graphql HTTP/1.1\r\nHost: gateway.test\r\nContent-Ty')
    const partialBody = await rawConnection(port)
    partialBody.socket.write(request('POST', '/graphql', { body: query, headers }).slice(0, -10))
    // Connected after the others, so the gateway accepted them before this one's request.
    const held = upstream.hold('/v1/lists')
    const complete = await rawConnection(port)
    complete.socket.write(request('POST', '/graphql', { body: query, headers }))
    await upstream.waitForCalls((calls) => calls.length === 1)
    run.child.kill('SIGTERM')
    await Promise.all([silent.closed, partialHeaders.closed, partialBody.closed])
    // No response was promised to those three: they got none.
    expect([silent, partialHeaders, partialBody].map((c) => c.text())).toEqual(['', '', ''])
    // The complete request is still being answered.
    expect(complete.text()).toBe('')
    held.release()
    await complete.closed
    expect(complete.text()).toMatch(/^HTTP\/1\.1 200/)
    expect(complete.text().toLowerCase()).toContain('connection: close')
    expect(complete.text()).toContain('"lists":{"totalCount":10}')
    expect(await run.exited).toBe(0)
    expect(run.output().stdout).not.toContain('SHUTDOWN_TIMEOUT_MS reached')
  })

  it('exits at SHUTDOWN_TIMEOUT_MS even when a readiness check still waits for the upstream', {
    timeout: 30_000,
  }, async () => {
    const port = await freePort()
    const run = start({
      PORT: String(port),
      UPSTREAM_URL: url,
      SHUTDOWN_TIMEOUT_MS: '1000',
      UPSTREAM_TIMEOUT_MS: '120000',
    })
    await run.ready
    const held = upstream.hold('/v1/lists')
    const probe = fetch(`http://127.0.0.1:${port}/ready`)
      .then((response) => response.status)
      .catch(() => 'cut')
    await upstream.waitForCalls((calls) => calls.length === 1)
    run.child.kill('SIGTERM')
    // The upstream still holds the readiness call (released only after the exit): closing the
    // upstream client did not keep the process past its deadline.
    expect(await run.exited).toBe(0)
    expect(await probe).toBe('cut')
    expect(run.output().stdout).toContain('SHUTDOWN_TIMEOUT_MS reached')
    expect(run.output().stdout).toMatch(/exiting before the upstream client/)
    held.release()
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
  const upstream = new DemoUpstream({ tokens: ['caller-token'] })
  const copies: string[] = []
  let url = ''
  beforeAll(async () => {
    url = await upstream.start()
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
    const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root })
    expect(build.status, String(build.stdout)).toBe(0)
  }, 120_000)
  afterAll(async () => {
    await upstream.stop()
    for (const copy of copies) rmSync(copy, { recursive: true, force: true })
  })

  it('never loads the demo upstream when UPSTREAM_URL is set: it serves from a dist/ without it', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'gateway-dist-'))
    copies.push(copy)
    const demoFolder = fileURLToPath(new URL('demo-upstream', dist))
    cpSync(fileURLToPath(dist), join(copy, 'dist'), {
      recursive: true,
      filter: (path) => !path.startsWith(demoFolder),
    })
    writeFileSync(join(copy, 'package.json'), JSON.stringify({ type: 'module' }))
    symlinkSync(fileURLToPath(new URL('node_modules', root)), join(copy, 'node_modules'))
    const entry = join(copy, 'dist', 'main.js')

    const port = await freePort()
    const run = startEntry(entry, { PORT: String(port), UPSTREAM_URL: url }, 'Gateway ready')
    running.push(run.child)
    await run.ready
    const answer = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer caller-token' },
      body: JSON.stringify({ query: '{ lists(first: 1) { totalCount } }' }),
    })
    expect(await answer.json()).toMatchObject({ data: { lists: { totalCount: 10 } } })
    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(0)

    // The copy really lacks it: without UPSTREAM_URL the same entry cannot start.
    const demoRun = startEntry(entry, { PORT: String(port) }, 'Gateway ready')
    running.push(demoRun.child)
    expect(await demoRun.exited).toBe(1)
    expect(demoRun.output().stderr).toContain('demo-upstream/server.js')
  })

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

/** An HTTP/1.1 request as bytes on the wire. */
function request(
  method: string,
  path: string,
  { body, headers }: { body: string; headers: Record<string, string> },
) {
  const lines = [`${method} ${path} HTTP/1.1`, 'host: gateway.test']
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  lines.push(`content-length: ${Buffer.byteLength(body)}`, '', body)
  return lines.join('\r\n')
}

/**
 * A plain TCP connection to the gateway (closed in afterEach): what it received so far, a wait
 * for what it receives, and `closed` once the gateway closed it.
 */
async function rawConnection(port: number) {
  const socket = connect(port, '127.0.0.1')
  sockets.push(socket)
  socket.on('error', () => {}) // writes after the gateway closed it
  let text = ''
  const waiters = new Set<() => void>()
  socket.on('data', (chunk) => {
    text += chunk
    for (const waiter of waiters) waiter()
  })
  const closed = once(socket, 'close').then(() => undefined)
  await once(socket, 'connect')
  return {
    socket,
    closed,
    text: () => text,
    received: (predicate: (text: string) => boolean) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (predicate(text)) {
            waiters.delete(check)
            resolve()
          }
        }
        waiters.add(check)
        check()
        void closed.then(() => {
          if (waiters.delete(check)) reject(new Error(`closed after receiving: ${text}`))
        })
      }),
  }
}

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
