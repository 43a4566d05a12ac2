import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, expect, it, onTestFinished } from 'vitest'
import { freePort, root } from '../support/process.js'

/**
 * `npm start` stopped as a container whose command it is: the signal goes to npm alone. npm
 * passes it to its script's process, which is the gateway itself (`exec`), so the gateway drains,
 * npm exits 0 with it, and no serving process is left behind.
 */

/** Whether a process of that id is alive. */
function alive(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe.each(['SIGTERM', 'SIGINT'] as const)('%s to the npm process of `npm start`', (signal) => {
  it('drains the gateway, exits 0 and leaves no process serving', async () => {
    const port = await freePort()
    const npm = spawn('npm', ['start'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        PORT: String(port),
        npm_config_update_notifier: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    npm.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    npm.stderr.resume()
    const exited = once(npm, 'exit').then(([code]) => code as number | null)
    // The gateway logs its own process id on every line.
    let gatewayPid = 0
    onTestFinished(() => {
      for (const pid of [npm.pid, gatewayPid]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL')
    })
    while (!/Gateway ready/.test(stdout)) {
      const closed = await Promise.race([once(npm.stdout, 'data').then(() => false), exited])
      if (closed !== false) throw new Error(`npm start exited before it was ready:\n${stdout}`)
    }
    gatewayPid = Number(/"pid":(\d+)[^\n]*Gateway ready/.exec(stdout)?.[1])
    expect(gatewayPid).not.toBe(npm.pid)
    const base = `http://127.0.0.1:${port}`
    expect((await fetch(`${base}/health`)).status).toBe(200)

    npm.kill(signal)
    expect(await exited).toBe(0)
    expect(stdout).toContain(`${signal} received: draining`)
    expect(stdout).toContain('"msg":"drained"')
    // npm waits for its script's process: once npm has exited, the gateway is gone too.
    expect(alive(gatewayPid)).toBe(false)
    await expect(fetch(`${base}/health`)).rejects.toThrow()
  })
})
