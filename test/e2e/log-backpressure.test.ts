import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { type Child, freePort, startEntry } from '../support/process.js'

/**
 * A log reader that stops reading (a paused log shipper, a blocked container log driver, a pager)
 * fills stdout's pipe. The gateway must keep answering and must still exit on SIGTERM within
 * SHUTDOWN_TIMEOUT_MS ("whatever becomes of its stdout", contract/runtime.md): Node itself
 * buffers writes to a full pipe, it never stops the event loop for them.
 */

const running: Child[] = []
afterEach(() => {
  for (const run of running.splice(0)) run.child.kill('SIGKILL')
})

const SHUTDOWN_TIMEOUT_MS = 2000
/** Generous: a gateway that is not stalled answers /health in milliseconds. */
const ANSWER_BOUND_MS = 10_000
const EXIT_BOUND_MS = 4 * SHUTDOWN_TIMEOUT_MS + 5000

/** One operation whose log line is ~60 KB: its name is logged in full. */
const longNamed = `query ${'A'.repeat(60_000)} { __typename }`

describe('stdout whose reader stops reading', () => {
  it('keeps answering /health and exits on SIGTERM', { timeout: 90_000 }, async () => {
    const port = await freePort()
    const run = startEntry(
      'src/main.ts',
      { PORT: String(port), SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) },
      'Gateway ready',
    )
    running.push(run)
    await run.ready
    // The reader stops: nothing more is taken out of the pipe.
    run.child.stdout?.removeAllListeners('data')
    run.child.stdout?.pause()

    // A few operations with long names: a few hundred KB of log lines, more than any pipe holds.
    for (let i = 0; i < 6; i++) {
      await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: longNamed }),
        signal: AbortSignal.timeout(ANSWER_BOUND_MS),
      }).then(
        (response) => response.text(),
        () => undefined,
      )
    }

    const health = await fetch(`http://127.0.0.1:${port}/health`, {
      signal: AbortSignal.timeout(ANSWER_BOUND_MS),
    }).then(
      (response) => response.status,
      (error: Error) => error.name,
    )
    expect(health).toBe(200)

    run.child.kill('SIGTERM')
    const exit = await Promise.race([run.exited, sleep(EXIT_BOUND_MS, 'still running')])
    expect(exit).toBe(0)
  })
})
