import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Child processes of `npm run bench`: started with only PATH and the given environment, their
 * readiness awaited, their CPU time and memory read from /proc, and every one of them killed
 * when the bench ends, however it ends (normal end, error, SIGINT, SIGTERM).
 */

/** The repository's root folder. */
export const root = new URL('../', import.meta.url)

const running = new Set<ChildProcess>()

function killAll(signal: NodeJS.Signals = 'SIGKILL') {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  }
  running.clear()
}

process.once('exit', () => killAll())
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll()
    console.error(`\n${signal}: children stopped`)
    process.exit(130)
  })
}
process.once('uncaughtException', (error) => {
  killAll()
  console.error(error)
  process.exit(1)
})
process.once('unhandledRejection', (error) => {
  killAll()
  console.error(error)
  process.exit(1)
})

export interface Child {
  name: string
  pid: number
  child: ChildProcess
  /** The last 4 KiB of its stdout and stderr, to report why it failed. */
  tail(): string
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (null: killed). */
  stop(graceMs?: number): Promise<number | null>
}

/**
 * Starts `node <args>` in the repository root. `stdout: 'ignore'` sends its output to
 * /dev/null (a gateway logging every operation should not make the bench parse its log).
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
  running.add(child)
  let tail = ''
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4096)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = once(child, 'exit').then(([code]) => {
    running.delete(child)
    return code as number | null
  })
  return {
    name,
    pid: child.pid,
    child,
    tail: () => tail,
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

/** Resolves with the first match of `pattern` in the child's stdout; rejects if it exits first. */
export function waitForOutput(started: Child, pattern: RegExp, timeoutMs = 15_000) {
  return new Promise<RegExpExecArray>((resolve, reject) => {
    let seen = ''
    const timer = setTimeout(
      () => fail(new Error(`${started.name}: not ready after ${timeoutMs} ms`)),
      timeoutMs,
    )
    const onData = (chunk: Buffer) => {
      seen += chunk.toString()
      const match = pattern.exec(seen)
      if (match) {
        cleanUp()
        resolve(match)
      }
    }
    const onExit = () =>
      fail(new Error(`${started.name}: exited before it was ready:\n${started.tail()}`))
    const cleanUp = () => {
      clearTimeout(timer)
      started.child.stdout?.off('data', onData)
      started.child.off('exit', onExit)
    }
    const fail = (error: Error) => {
      cleanUp()
      reject(error)
    }
    started.child.stdout?.on('data', onData)
    started.child.once('exit', onExit)
  })
}

/** Polls `url` until it answers 200; rejects if the child exits or `timeoutMs` passes. */
export async function waitForHttp(started: Child, url: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null || started.child.signalCode !== null) {
      throw new Error(`${started.name}: exited before it was ready:\n${started.tail()}`)
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
  throw new Error(`${started.name}: ${url} not 200 after ${timeoutMs} ms:\n${started.tail()}`)
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (`getconf CLK_TCK`). */
export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
})()

/** User + system CPU time the process has used so far, in ms (from /proc/<pid>/stat). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name (which may hold spaces) start with the state (field 3).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  return ((utime + stime) * 1000) / CLOCK_TICKS
}

/** VmRSS and VmHWM (peak) of the process, in bytes (from /proc/<pid>/status). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1])
  return { rss: kib('VmRSS') * 1024, peak: kib('VmHWM') * 1024 }
}
