import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { type Browser, chromium, type Page } from 'playwright-core'
import { it } from 'vitest'
import { root } from './process.js'
import { serve } from './serve.js'

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing). */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * Whether the browser tests can run. Where Chromium is not installed they are skipped with the
 * reason, as the Redis tests are without redis-server; CI sets REQUIRE_CHROMIUM=1, which turns a
 * missing Chromium into a failure.
 */
export const chromiumAvailable = existsSync(chromiumPath)

/** In a test file: a failing test where REQUIRE_CHROMIUM=1 demands the Chromium that is missing. */
export function requireChromium() {
  if (chromiumAvailable || process.env.REQUIRE_CHROMIUM !== '1') return
  it('has Chromium, which REQUIRE_CHROMIUM=1 demands', () => {
    throw new Error(`REQUIRE_CHROMIUM=1 but there is no ${chromiumPath} (apt-get install chromium)`)
  })
}

/**
 * Chromium driven by playwright-core, for the example apps. The flags keep it off the network it
 * would otherwise try to reach at start (this machine's is closed): no background networking,
 * component updates or sync.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/**
 * Builds an example as a developer does (`vite build`, its own process, NODE_ENV=production) into
 * a new temporary folder, and returns the folder.
 */
export async function buildExample(name: string): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), `example-${name}-`))
  const config = fileURLToPath(new URL(`examples/${name}/vite.config.ts`, root))
  await promisify(execFile)(
    fileURLToPath(new URL('node_modules/.bin/vite', root)),
    ['build', '--config', config, '--outDir', outDir, '--emptyOutDir'],
    {
      cwd: fileURLToPath(root),
      env: { ...process.env, NODE_ENV: process.env.EXAMPLE_NODE_ENV ?? 'production' },
    },
  )
  return outDir
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
}

/** The files of `dir` on a loopback port of their own: another origin than the gateway's. */
export async function serveFiles(dir: string): Promise<string> {
  const { url } = await serve(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    const file = path === '/' ? 'index.html' : path.slice(1)
    if (file.includes('..')) return void res.writeHead(400).end()
    try {
      const body = await readFile(join(dir, file))
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
      res.end(body)
    } catch {
      res.writeHead(404).end()
    }
  })
  return url
}

/**
 * Runs `steps` on a new page; when one fails, a screenshot of the page goes to a temporary folder
 * (its path in the error) before the error is thrown again.
 */
export async function onPage(
  browser: Browser,
  name: string,
  steps: (page: Page, step: (what: string) => void) => Promise<void>,
) {
  const context = await browser.newContext()
  const page = await context.newPage()
  let current = 'start'
  try {
    await steps(page, (what) => {
      current = what
    })
  } catch (error) {
    const shot = join(await mkdtemp(join(tmpdir(), 'example-failure-')), `${name}.png`)
    await page.screenshot({ path: shot, fullPage: true }).catch(() => undefined)
    throw new Error(`${name}, at "${current}" (screenshot: ${shot}): ${String(error)}`, {
      cause: error,
    })
  } finally {
    await context.close()
  }
}
