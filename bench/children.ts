import { type ChildProcess, execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { type Child, spawnNode as spawnChild } from '../test/support/process.js'

export { type Child, freePort, root, waitForHttp, waitForOutput } from '../test/support/process.js'

/**
 * Child processes of `npm run bench`, started and awaited as the e2e tests do theirs
 * (test/support/process.ts): their CPU time and memory read from /proc, and every one of them
 * killed when the bench ends, however it ends (normal end, error, SIGINT, SIGTERM).
 */

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

/**
 * Starts `node <args>` in the repository root (test/support/process.ts), to be stopped however
 * the bench ends.
 */
export function spawnNode(...args: Parameters<typeof spawnChild>): Child {
  const started = spawnChild(...args)
  running.add(started.child)
  void started.exited.then(() => running.delete(started.child))
  return started
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
