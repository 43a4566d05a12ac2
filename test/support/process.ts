import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'

/** Processes as operators run them: an entry point, settings from the environment, signals. */

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

export interface Started {
  child: ChildProcess
  /** The first stdout line holding the ready text; rejects if the process exits before it. */
  ready: Promise<string>
  exited: Promise<number | null>
  output(): { stdout: string; stderr: string }
}

/**
 * Runs an entry of the repository (e.g. `src/main.ts`, `scripts/start.mjs`) with only PATH and
 * `env` as its environment. The caller kills what it started in an afterEach/afterAll hook.
 */
export function startEntry(entry: string, env: Record<string, string>, readyText: string): Started {
  // TypeScript runs through tsx; JavaScript (scripts/start.mjs, dist/) as production runs it.
  const args = entry.endsWith('.ts') ? ['--import', 'tsx', entry] : [entry]
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', () => {
      const line = stdout.split('\n').find((l) => l.includes(readyText))
      if (line !== undefined) resolve(line)
    })
    void exited.then(() => reject(new Error(`exited early: ${stderr}${stdout}`)))
  })
  // Tests that expect an early exit never wait for readiness.
  ready.catch(() => undefined)
  return { child, ready, exited, output: () => ({ stdout, stderr }) }
}
