import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Processes as operators run them (an entry point, settings from the environment, signals), for
 * the e2e tests and `npm run bench`. Whoever starts a process stops it: the tests in an
 * afterEach/afterAll hook, the bench when it ends (bench/children.ts).
 */

/** The repository's root folder. */
export const root = new URL('../../', import.meta.url)

/** A loopback port nobody listens on (yet). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

export interface Child {
  name: string
  pid: number
  child: ChildProcess
  /** Everything it wrote so far (stdout is empty when it was not piped). */
  output(): { stdout: string; stderr: string }
  /** Resolves with its exit code (null: ended by a signal). */
  exited: Promise<number | null>
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>
}

/**
 * Starts `node <args>` in the repository root with only PATH and `env` as its environment.
 * `stdout: 'ignore'` sends its output to /dev/null (a gateway logging every operation of a bench
 * should not make the bench read its log).
 */
export function spawnNode(
  name: string,
  args: string[],
  env: Record<string, string>,
  options: { stdout?: 'pipe' | 'ignore' } = {},
): Child {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'],
  })
  if (child.pid === undefined) throw new Error(`${name}: could not start`)
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  return {
    name,
    pid: child.pid,
    child,
    output: () => ({ stdout, stderr }),
    exited,
    stop: async (graceMs = 5000) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      const code = await exited
      clearTimeout(timer)
      return code
    },
  }
}

/** Why a child is not ready: its name and the last of what it wrote. */
function notReady(started: Child, why: string) {
  const { stdout, stderr } = started.output()
  return new Error(`${started.name}: ${why}:\n${(stdout + stderr).slice(-4096)}`)
}

/**
 * Resolves with the first match of `pattern` in the child's stdout; rejects if the child exits
 * first, or after `timeoutMs`.
 */
export function waitForOutput(
  started: Child,
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(notReady(started, `not ready after ${timeoutMs} ms`)),
      timeoutMs,
    )
    const check = () => {
      const match = pattern.exec(started.output().stdout)
      if (!match) return
      cleanUp()
      resolve(match)
    }
    const onExit = () => fail(notReady(started, 'exited before it was ready'))
    const cleanUp = () => {
      clearTimeout(timer)
      started.child.stdout?.off('data', check)
      started.child.off('exit', onExit)
    }
    const fail = (error: Error) => {
      cleanUp()
      reject(error)
    }
    started.child.stdout?.on('data', check)
    started.child.once('exit', onExit)
    check()
  })
}

/** Polls `url` until it answers 200; rejects if the child exits first, or after `timeoutMs`. */
export async function waitForHttp(started: Child, url: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null || started.child.signalCode !== null) {
      throw notReady(started, 'exited before it was ready')
    }
    try {
      const response = await fetch(url)
      await response.arrayBuffer()
      if (response.status === 200) return
    } catch {
      // not listening yet
    }
    await sleep(50)
  }
  throw notReady(started, `${url} not 200 after ${timeoutMs} ms`)
}

/**
 * Runs an entry of the repository (`src/main.ts`, `dist/main.js`, `scripts/start.mjs` …) as its
 * users run it: TypeScript through tsx, JavaScript as it is. `ready` resolves with the first
 * whole stdout line holding `readyText`, and rejects if the process exits before it.
 */
export function startEntry(
  entry: string,
  env: Record<string, string>,
  readyText: string,
): Child & { ready: Promise<string> } {
  const args = entry.endsWith('.ts') ? ['--import', 'tsx', entry] : [entry]
  const started = spawnNode(entry, args, env)
  const escaped = readyText.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const line = new RegExp(`^[^\\n]*${escaped}[^\\n]*(?=\\n)`, 'm')
  const ready = waitForOutput(started, line).then(([whole]) => whole)
  // Tests that expect an early exit never wait for readiness.
  ready.catch(() => undefined)
  return { ...started, ready }
}
