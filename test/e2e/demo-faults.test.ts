import { describe, expect, it } from 'vitest'
import { claes, companyArgs } from '../support/fixtures.js'
import { startGateway } from '../support/gateway-process.js'
import { freePort } from '../support/process.js'

/**
 * `npm start` for a frontend developer who builds error states (docs/demo-upstream.md): the
 * embedded demo fails as DEMO_FAULTS says, the log line gives the URL of /_demo/faults, and
 * what is PUT there changes the answers while the gateway runs.
 */

const page = `{ company(${companyArgs(claes)}) {
  name statements: financials(first: 1) { totalCount } contacts(first: 1) { totalCount } } }`

describe('npm start with DEMO_FAULTS', () => {
  it('fails the part DEMO_FAULTS names, and /_demo/faults from the log line changes it', async () => {
    const port = await freePort()
    // As docs/demo-upstream.md says: no cache, so that each fault shows at once.
    const run = startGateway(
      { PORT: String(port), DEMO_FAULTS: 'financials:503', CACHE_TTL_SECONDS: '0' },
      'scripts/start.mjs',
    )
    await run.ready
    const admin = /http:\/\/127\.0\.0\.1:\d+\/_demo\/faults/.exec(run.output().stdout)?.[0]
    expect(admin).toBeDefined()
    const gateway = `http://127.0.0.1:${port}`
    const ask = async () => {
      const answer = await fetch(`${gateway}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: page }),
      })
      expect(answer.status).toBe(200)
      const body = (await answer.json()) as {
        data: { company: Record<string, unknown> }
        errors?: { path: string[]; extensions: { code: string } }[]
      }
      return {
        company: body.data.company,
        errors: body.errors?.map((e) => [e.path, e.extensions.code]),
      }
    }

    const failing = await ask()
    // The name comes from the same statements read: null with it.
    expect(failing.errors?.sort()).toEqual([
      [['company', 'name'], 'UPSTREAM_ERROR'],
      [['company', 'statements'], 'UPSTREAM_ERROR'],
    ])
    expect(failing.company).toMatchObject({ name: null, statements: null })
    expect(failing.company.contacts).not.toBeNull()

    const put = await fetch(`${admin}`, {
      method: 'PUT',
      body: JSON.stringify({ DEMO_FAULTS: 'contacts:500' }),
    })
    expect(await put.json()).toEqual({
      DEMO_FAULTS: 'contacts:500',
      DEMO_FAULT_RATE: 0,
      DEMO_LATENCY_MS: 0,
    })
    const moved = await ask()
    expect(moved.errors).toEqual([[['company', 'contacts'], 'UPSTREAM_ERROR']])
    expect(moved.company.statements).not.toBeNull()

    expect((await fetch(`${admin}`, { method: 'DELETE' })).status).toBe(200)
    expect((await ask()).errors).toBeUndefined()
    // The endpoint is the demo's: the gateway's port has no such path.
    expect((await fetch(`${gateway}/_demo/faults`)).status).toBe(404)
    expect(await run.stop()).toBe(0)
  })

  it('stops with one line naming a bad DEMO_* setting', async () => {
    const run = startGateway({ PORT: String(await freePort()), DEMO_FAULT_RATE: 'often' })
    expect(await run.exited).toBe(1)
    const { stderr } = run.output()
    expect(stderr.trim().split('\n')).toEqual([
      'Invalid setting DEMO_FAULT_RATE: must be a number from 0 to 1',
    ])
  })
})
