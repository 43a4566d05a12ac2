import { onTestFinished } from 'vitest'
import { type Child, startEntry } from './process.js'

/**
 * The gateway as its image runs it (`node dist/main.js`, dist/ built by the e2e project's global
 * setup), with only these settings in its environment; killed when the test ends, whatever it
 * found. `ready` resolves once it logged that it listens.
 */
export function startGateway(
  env: Record<string, string>,
  entry = 'dist/main.js',
): Child & { ready: Promise<string> } {
  const started = startEntry(entry, env, 'Gateway ready')
  onTestFinished(() => {
    if (started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill('SIGKILL')
    }
  })
  return started
}
