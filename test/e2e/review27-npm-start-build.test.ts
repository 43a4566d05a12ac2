import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { statSync, utimesSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect, it, onTestFinished } from 'vitest'
import { freePort, root } from '../support/process.js'

/**
 * Review of issue 27, "`npm start` passes SIGTERM and SIGINT on to the server … so stopping npm
 * drains and exits 0 with no orphan", and contract/runtime.md: "`npm start` builds if needed".
 * When dist/ is older than src/ (the first start after an edit, or an image whose dist/ was not
 * built), scripts/start.mjs runs tsc with spawnSync; a SIGTERM to npm then kills start.mjs (no
 * handler yet, its loop blocked), npm dies by the signal (no exit code), and tsc is left running
 * as an orphan (parent pid 1) until it finishes. Observed: npm exit [null, 'SIGTERM'], tsc alive
 * with ppid 1.
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
  // dist/ older than src/: what an edit does (the file's content is unchanged; its time restored).
  const file = new URL('src/config.ts', root)
  const { atime, mtime } = statSync(file)
  utimesSync(file, new Date(), new Date())
  const spawned: number[] = []
  onTestFinished(async () => {
    // Let an orphaned tsc finish writing dist/ (it is ours: started by this test's npm) before
    // anything is killed, so that dist/ is never left half written.
    for (let i = 0; i < 600 && spawned.some(alive); i++) await sleep(100)
    for (const pid of spawned) if (alive(pid)) process.kill(pid, 'SIGKILL')
    utimesSync(file, atime, mtime)
  })

  const npm = spawn('npm', ['start'], {
    cwd: root,
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
  // Observed: code null, signal SIGTERM, and tsc still running with parent pid 1.
  expect({ code, signal, tscAlive: alive(tsc?.pid ?? 0) }).toEqual({
    code: 0,
    signal: null,
    tscAlive: false,
  })
})
