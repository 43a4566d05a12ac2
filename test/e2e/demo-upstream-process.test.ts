import type { ChildProcess } from 'node:child_process'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { freePort, startEntry } from '../support/process.js'

/**
 * The demo upstream run as a process of its own (the compose file's upstream service): it says
 * where it listens and with which token, serves the REST interface, and stops on SIGTERM or on a
 * bad setting.
 */

/** Runs dist/demo-upstream/main.js as the compose file does, settings from the environment. */
const startDemo = (env: Record<string, string>) =>
  startEntry('dist/demo-upstream/main.js', env, 'Demo upstream ready')

describe('the demo upstream as its own process', () => {
  const children: ChildProcess[] = []
  afterAll(() => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
  })

  let demo: ReturnType<typeof startDemo>
  let port: number
  let readyLine: string
  beforeAll(async () => {
    port = await freePort()
    demo = startDemo({ PORT: String(port), DEMO_LATENCY_MS: '1' })
    children.push(demo.child)
    readyLine = await demo.ready
  }, 60_000)

  it('logs its URL and the demo token, and its settings', () => {
    const url = `http://127.0.0.1:${port}`
    expect(readyLine).toContain(url)
    expect(readyLine).toContain(DEMO_TOKEN)
    expect(JSON.parse(readyLine)).toMatchObject({ url, latencyMs: 1 })
  })

  it('serves the REST interface to the demo token', async () => {
    const res = await request(`http://127.0.0.1:${port}/v1/lists`, {
      headers: { authorization: `Bearer ${DEMO_TOKEN}` },
    })
    expect(res.statusCode).toBe(200)
    const body = (await res.body.json()) as { data: unknown[]; pagination: unknown }
    expect(body.pagination).toEqual(expect.objectContaining({ offset: 0 }))
    expect(Array.isArray(body.data)).toBe(true)
    const anonymous = await request(`http://127.0.0.1:${port}/v1/lists`)
    await anonymous.body.dump()
    expect(anonymous.statusCode).toBe(401)
  })

  it('exits 0 on SIGTERM', async () => {
    demo.child.kill('SIGTERM')
    expect(await demo.exited).toBe(0)
  })

  it('stops with one line naming a bad variable', async () => {
    const bad = startDemo({ PORT: String(port), DEMO_LATENCY_MS: 'soon' })
    children.push(bad.child)
    expect(await bad.exited).toBe(1)
    const { stdout, stderr } = bad.output()
    expect(stdout).toBe('')
    expect(stderr.trim().split('\n')).toEqual([expect.stringContaining('DEMO_LATENCY_MS')])
  })
})
