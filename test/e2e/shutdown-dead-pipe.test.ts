import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { type Child, freePort, startEntry } from '../support/process.js'

/**
 * The process exits on SIGTERM whatever became of its stdout and stderr: a log shipper or a
 * parent that went away first (`npm start | head`) never keeps it alive.
 */

const running: Child[] = []
afterEach(() => {
  for (const run of running.splice(0)) run.child.kill('SIGKILL')
})

/** Generous beside SHUTDOWN_TIMEOUT_MS: the drain has nothing to wait for, even on a loaded machine. */
const SHUTDOWN_TIMEOUT_MS = 5000
const EXIT_BOUND_MS = 4 * SHUTDOWN_TIMEOUT_MS

describe.each(['stdout', 'stderr'] as const)('SIGTERM once the reader of %s is gone', (pipe) => {
  it('drains and exits 0', { timeout: 60_000 }, async () => {
    const run = startEntry(
      'src/main.ts',
      { PORT: String(await freePort()), SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) },
      'Gateway ready',
    )
    running.push(run)
    await run.ready
    // The reading end closes: the gateway's next write there fails with EPIPE.
    run.child[pipe]?.destroy()
    run.child.kill('SIGTERM')
    const exit = await Promise.race([run.exited, sleep(EXIT_BOUND_MS, 'still running')])
    expect(exit).toBe(0)
  })
})
