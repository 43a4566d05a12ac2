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
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DemoUpstream } from '../../src/demo-upstream/server.js'
import { demoData } from '../support/fixtures.js'
import { startGateway } from '../support/gateway-process.js'
import { freePort, root } from '../support/process.js'

/**
 * dist/ as `npm run build` makes it (the e2e project's global setup): it runs on production
 * dependencies alone, without the demo upstream when UPSTREAM_URL is set, and `npm start`
 * serves it as it is.
 */

describe('the production build', () => {
  const dist = new URL('dist/', root)
  const upstream = new DemoUpstream({ data: demoData, tokens: ['caller-token'] })
  const copies: string[] = []
  let url = ''
  beforeAll(async () => {
    url = await upstream.start()
  })
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
    const run = startGateway({ PORT: String(port), UPSTREAM_URL: url }, entry)
    await run.ready
    const answer = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer caller-token' },
      body: JSON.stringify({ query: '{ lists(first: 1) { totalCount } }' }),
    })
    expect(await answer.json()).toMatchObject({
      data: { lists: { totalCount: demoData.lists.length } },
    })
    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(0)

    // The copy really lacks it: without UPSTREAM_URL the same entry cannot start.
    const demoRun = startGateway({ PORT: String(port) }, entry)
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
    const started = startGateway({ PORT: String(port) }, 'scripts/start.mjs')
    await started.ready
    const answer = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ lists(first: 1) { totalCount } }' }),
    })
    expect(await answer.json()).toMatchObject({
      data: { lists: { totalCount: demoData.lists.length } },
    })
    started.child.kill('SIGTERM')
    expect(await started.exited).toBe(0)
    // dist/ was current: nothing was compiled.
    expect(statSync(new URL('.tsbuildinfo', dist)).mtimeMs).toBe(builtAt)
  })
})
