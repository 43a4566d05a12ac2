import type { ChildProcess } from 'node:child_process'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { claes } from '../support/fixtures.js'
import { freePort, startEntry } from '../support/process.js'

/**
 * The demo upstream run as a process of its own (the compose file's upstream service): it says
 * where it listens, with which token and faults, serves the REST interface with the faults of
 * its settings, and stops on SIGTERM or on a bad setting.
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
    demo = startDemo({ PORT: String(port), DEMO_LATENCY_MS: '1', DEMO_FAULTS: 'financials:503' })
    children.push(demo.child)
    readyLine = await demo.ready
  }, 60_000)

  it('logs its URL and the demo token, and its settings', () => {
    const url = `http://127.0.0.1:${port}`
    expect(readyLine).toContain(url)
    expect(readyLine).toContain(DEMO_TOKEN)
    expect(JSON.parse(readyLine)).toMatchObject({
      url,
      latencyMs: 1,
      faults: { DEMO_FAULTS: 'financials:503', DEMO_FAULT_RATE: 0, DEMO_LATENCY_MS: 1 },
      admin: `${url}/_demo/faults`,
    })
    expect(readyLine).toContain(`PUT, DELETE ${url}/_demo/faults`)
  })

  it('answers with the faults of DEMO_FAULTS, changed through /_demo/faults', async () => {
    const financials = async () => {
      const res = await request(
        `http://127.0.0.1:${port}/v1/companies/BE/${claes.companyNumber}/financials`,
        {
          headers: { authorization: `Bearer ${DEMO_TOKEN}` },
        },
      )
      await res.body.dump()
      return res.statusCode
    }
    expect(await financials()).toBe(503)
    const cleared = await request(`http://127.0.0.1:${port}/_demo/faults`, { method: 'DELETE' })
    expect(cleared.statusCode).toBe(200)
    await cleared.body.dump()
    expect(await financials()).toBe(200)
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

  it.each([
    ['DEMO_LATENCY_MS', 'soon'],
    ['DEMO_FAULTS', 'payments:503'],
  ])('stops with one line naming a bad variable: %s=%s', async (name, value) => {
    const bad = startDemo({ PORT: String(port), [name]: value })
    children.push(bad.child)
    expect(await bad.exited).toBe(1)
    const { stdout, stderr } = bad.output()
    expect(stdout).toBe('')
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(`^Invalid setting ${name}: `)])
  })
})
