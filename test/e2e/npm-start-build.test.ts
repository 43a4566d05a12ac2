import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { expect, it, onTestFinished } from 'vitest'
import { freePort, root } from '../support/process.js'

/**
 * `npm start` passes SIGTERM and SIGINT on to what it runs (contract/runtime.md), while it builds
 * too: when dist/ is missing or older than src/, scripts/start.mjs runs tsc, and a SIGTERM then
 * stops the build and exits 0, leaving no tsc behind. In a copy of the repository without dist/,
 * so that the build it stops is no other test's.
 */

/** The processes whose parent is `pid`, with their command lines. */
function children(pid: number): { pid: number; args: string }[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,args=']).toString()
  return out
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[2]) === pid)
    .map((m) => ({ pid: Number(m[1]), args: m[3] ?? '' }))
}
const alive = (pid: number) => {
  if (pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

it('SIGTERM to `npm start` while it builds exits 0 and leaves no process behind', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'npm-start-build-'))
  const from = fileURLToPath(root)
  for (const entry of ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(from, entry), join(copy, entry), { recursive: true })
  }
  symlinkSync(join(from, 'node_modules'), join(copy, 'node_modules'))
  const spawned: number[] = []
  onTestFinished(() => {
    for (const pid of spawned) if (alive(pid)) process.kill(pid, 'SIGKILL')
    rmSync(copy, { recursive: true, force: true })
  })

  const npm = spawn('npm', ['start'], {
    cwd: copy,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(await freePort()),
      npm_config_update_notifier: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  npm.stdout.resume()
  npm.stderr.resume()
  spawned.push(npm.pid ?? 0)
  const exited = once(npm, 'exit') as Promise<[number | null, NodeJS.Signals | null]>

  // Wait until start.mjs runs tsc.
  let tsc: { pid: number } | undefined
  for (let i = 0; i < 200 && !tsc; i++) {
    await sleep(50)
    const script = children(npm.pid ?? 0).find((c) => c.args.includes('scripts/start.mjs'))
    if (script) spawned.push(script.pid)
    tsc = script && children(script.pid).find((c) => c.args.includes('tsc'))
  }
  expect(tsc).toBeDefined()
  spawned.push(tsc?.pid ?? 0)

  npm.kill('SIGTERM')
  const [code, signal] = await exited
  await sleep(300)
  expect({ code, signal, tscAlive: alive(tsc?.pid ?? 0) }).toEqual({
    code: 0,
    signal: null,
    tscAlive: false,
  })
})
