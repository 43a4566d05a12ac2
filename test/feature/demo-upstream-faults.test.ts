import { once } from 'node:events'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { DEFAULT_RETRY_AFTER_S, RESOURCES, type Resource } from '../../src/demo-upstream/faults.js'
import { DEMO_TOKEN, DemoUpstream, type ReceivedCall } from '../../src/demo-upstream/server.js'
import { NO_FAULTS, readDemoSettings, shown } from '../../src/demo-upstream/settings.js'
import { bigList, companyArgs, demoData, michiels } from '../support/fixtures.js'
import { startStack } from '../support/stack.js'

/**
 * The demo's fault settings as a frontend developer uses them (docs/demo-upstream.md): set in
 * the environment (DEMO_FAULTS, DEMO_FAULT_RATE, DEMO_LATENCY_MS) or through /_demo/faults on
 * the demo's port, and seen through the gateway as the coded error a UI gets, on the failing
 * field only, the rest of the page there.
 */

// Long enough for a loaded machine's healthy reads; a `timeout` fault never answers at all.
const stack = await startStack({ upstreamTimeoutMs: 1500 })
const { demo } = stack
/** Entries expire after one second. */
const cached = await startStack({ cacheTtlSeconds: 1, cacheStaleSeconds: 60 })
const company = michiels

const page = `{
  company(${companyArgs(company)}) {
    number
    statements: financials(first: 2) { totalCount }
    lookalikes(first: 1) { totalCount }
    shareholders { name }
    contacts(first: 1) { totalCount }
  }
  list(listId: ${bigList.id}) { name companies(first: 1) { totalCount } }
}`

type Page = { company: Record<string, unknown>; list: Record<string, unknown> }
let healthy: Page
beforeAll(async () => {
  const { body } = await stack.post(page)
  expect(body.errors).toBeUndefined()
  healthy = body.data as Page
})

/** The settings as the environment gives them. */
function settingsOf(env: Record<string, string>) {
  const read = readDemoSettings(env)
  if (!read.ok) throw new Error(read.message)
  return read.settings
}

/** Applied as both entry points apply the environment's. */
function fromEnvironment(env: Record<string, string>) {
  demo.configure(settingsOf(env))
}

async function admin(method: string, body?: string) {
  const url = demo.adminUrl
  if (url === undefined) throw new Error('the demo serves no /_demo/faults')
  const response = await fetch(url, { method, body })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** Through the endpoint, as `curl -X PUT <url> -d '{"DEMO_FAULTS": "…"}'` sends them. */
async function throughAdmin(env: Record<string, string>) {
  expect(await admin('PUT', JSON.stringify(env))).toEqual({
    status: 200,
    body: shown(settingsOf(env)),
  })
}

const ways = [
  ['the environment', fromEnvironment],
  ['/_demo/faults', throughAdmin],
] as const

/** Each fault: the field of `page` it fails, with which code, after how many upstream requests. */
const faults = [
  ['financials:503', ['company', 'statements'], 'UPSTREAM_ERROR', 3],
  ['financials:500', ['company', 'statements'], 'UPSTREAM_ERROR', 1],
  ['members:404', ['list', 'companies'], 'NOT_FOUND', 1],
  ['contacts:timeout', ['company', 'contacts'], 'UPSTREAM_TIMEOUT', 1],
  ['relationships:slow:600000', ['company', 'shareholders'], 'UPSTREAM_TIMEOUT', 1],
  ['lookalikes:badbody', ['company', 'lookalikes'], 'UPSTREAM_BAD_RESPONSE', 1],
] as const

describe.each(ways)('faults set through %s', (_, apply) => {
  it.each(faults)(
    '%s: %j fails with %s, the rest of the page is there',
    async (setting, path, code, requests) => {
      const [resource] = setting.split(':') as [Resource]
      await apply({ DEMO_FAULTS: setting })
      const { status, body } = await stack.post(page)
      expect(status).toBe(200)
      expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[path, code]])
      const [parent, field] = path
      expect(body.data).toEqual({
        ...healthy,
        [parent]: { ...healthy[parent], [field]: null },
      })
      const failing = (calls: ReceivedCall[]) =>
        calls.filter((call) => RESOURCES[resource].path.test(call.path))
      expect(failing(demo.calls())).toHaveLength(requests)
      // The gateway gave up on a read the demo never answered, and closes its connection.
      if (code === 'UPSTREAM_TIMEOUT') {
        await demo.waitForCalls((calls) => failing(calls).every((call) => call.abandoned))
      }
    },
  )

  it('slow:<ms> answers normally, that much later', async () => {
    await apply({ DEMO_FAULTS: 'financials:slow:50' })
    const started = performance.now()
    const answer = await fetch(`${demo.url}/v1/companies/BE/${company.companyNumber}/financials`, {
      headers: { authorization: `Bearer ${DEMO_TOKEN}` },
    })
    expect(answer.status).toBe(200)
    await answer.json()
    expect(performance.now() - started).toBeGreaterThanOrEqual(50)
    const { body } = await stack.post(page)
    expect(body).toEqual({ data: healthy, extensions: expect.anything() })
  })

  it('DEMO_FAULT_RATE=1 answers every read 503: each field fails alone, after its retries', async () => {
    await apply({ DEMO_FAULTS: 'financials:404', DEMO_FAULT_RATE: '1' })
    const { body } = await stack.post(`{ lists(first: 1) { totalCount } }`)
    expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['lists'], 'UPSTREAM_ERROR'],
    ])
    expect(demo.calls().map((call) => call.status)).toEqual([503, 503, 503])
    // A resource DEMO_FAULTS names keeps its own fault.
    const statements = await stack.post(
      `{ company(${companyArgs(company)}) { financials(first: 1) { totalCount } } }`,
    )
    expect(statements.body.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND'])
  })
})

describe.each(ways)('a 429 set through %s', (_, apply) => {
  const statements = `{ company(${companyArgs(company)}) { financials(first: 1) { totalCount } } }`
  const peers = `{ company(${companyArgs(company)}) { lookalikes(first: 1) { totalCount } } }`

  it(`financials:429: the demo asks to wait ${DEFAULT_RETRY_AFTER_S} s, and the UI is told so: RATE_LIMITED with retryAfterSeconds, at once; the gateway then holds every read of the token`, async () => {
    // A gateway of its own: the pause holds every read made with its token.
    const paused = stack.replica({ upstreamTimeoutMs: 1500 })
    await apply({ DEMO_FAULTS: 'financials:429' })
    const told = await paused.post(statements)
    expect(told.body.errors?.map((e) => [e.path, e.extensions])).toEqual([
      [
        ['company', 'financials'],
        { code: 'RATE_LIMITED', retryable: true, retryAfterSeconds: DEFAULT_RETRY_AFTER_S },
      ],
    ])
    expect(demo.calls().map((call) => call.status)).toEqual([429])
    // Another resource, no fault on it: not read until the wait is over.
    const held = await paused.post(peers)
    expect(held.body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' })
    expect(held.body.errors?.[0]?.extensions?.retryAfterSeconds).toBeGreaterThan(
      DEFAULT_RETRY_AFTER_S - 5,
    )
    expect(held.body.errors?.[0]?.message).toMatch(/the upstream answered 429 and asked to wait/)
    expect(demo.calls()).toHaveLength(1)
  })

  it('<status>:<s> sends Retry-After: <s>', async () => {
    await apply({ DEMO_FAULTS: 'financials:429:5,lookalikes:503:2,contacts:503' })
    const retryAfter = async (resource: string) => {
      const answer = await fetch(
        `${demo.url}/v1/companies/BE/${company.companyNumber}/${resource}`,
        { headers: { authorization: `Bearer ${DEMO_TOKEN}` } },
      )
      await answer.arrayBuffer()
      return [answer.status, answer.headers.get('retry-after')]
    }
    expect(await retryAfter('financials')).toEqual([429, '5'])
    expect(await retryAfter('lookalikes')).toEqual([503, '2'])
    expect(await retryAfter('contacts')).toEqual([503, null])
  })
})

describe('what each setting does, read by the demo', () => {
  const get = (path: string) =>
    fetch(`${demo.url}${path}`, { headers: { authorization: `Bearer ${DEMO_TOKEN}` } }).then(
      async (answer) => {
        await answer.arrayBuffer()
        return answer.status
      },
    )
  const companyPath = `/v1/companies/BE/${company.companyNumber}`
  const examples: Record<Resource, string> = {
    lists: '/v1/lists',
    list: `/v1/lists/${bigList.id}`,
    members: `/v1/lists/${bigList.id}/companies`,
    listContacts: `/v1/lists/${bigList.id}/contacts`,
    financials: `${companyPath}/financials`,
    lookalikes: `${companyPath}/lookalikes`,
    relationships: `${companyPath}/relationships`,
    contacts: `${companyPath}/contacts`,
  }

  it.each(Object.keys(RESOURCES) as Resource[])(
    '%s: its reads fail, no other',
    async (resource) => {
      fromEnvironment({ DEMO_FAULTS: `${resource}:418` })
      const statuses = await Promise.all(Object.values(examples).map(get))
      expect(Object.fromEntries(Object.keys(examples).map((r, i) => [r, statuses[i]]))).toEqual(
        Object.fromEntries(Object.keys(examples).map((r) => [r, r === resource ? 418 : 200])),
      )
    },
  )

  it('DEMO_FAULT_RATE fails that share of reads, the same reads on every run', async () => {
    const run = async (target: DemoUpstream) => {
      const statuses: number[] = []
      for (let i = 0; i < 40; i++) {
        const answer = await fetch(`${target.url}/v1/lists`, {
          headers: { authorization: `Bearer ${DEMO_TOKEN}` },
        })
        await answer.arrayBuffer()
        statuses.push(answer.status)
      }
      return statuses
    }
    fromEnvironment({ DEMO_FAULT_RATE: '0.5' })
    const first = await run(demo)
    expect(new Set(first)).toEqual(new Set([200, 503]))
    // Applied again (a PUT of the same settings): the draws start again.
    await throughAdmin({ DEMO_FAULT_RATE: '0.5' })
    expect(await run(demo)).toEqual(first)
    // Another process with the same setting fails the same reads.
    const other = new DemoUpstream({ data: demoData })
    onTestFinished(() => other.stop())
    await other.start()
    other.configure(settingsOf({ DEMO_FAULT_RATE: '0.5' }))
    expect(await run(other)).toEqual(first)
  })

  it('DEMO_LATENCY_MS delays every answer', async () => {
    fromEnvironment({ DEMO_LATENCY_MS: '50' })
    const started = performance.now()
    expect(await get('/v1/lists')).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(50)
  })
})

describe('invalid settings', () => {
  it.each([
    ['DEMO_FAULTS', 'payments:503', /`payments` is not a resource: one of lists, list, members/],
    ['DEMO_FAULTS', 'financials:200', /financials: `200` is not a fault/],
    ['DEMO_FAULTS', 'financials', /financials: `` is not a fault/],
    ['DEMO_FAULTS', 'financials:slow:600001', /`slow:600001` is not a fault/],
    ['DEMO_FAULTS', 'financials:429:601', /`429:601` is not a fault: .*at most 600 s/],
    ['DEMO_FAULTS', 'financials:429:soon', /`429:soon` is not a fault/],
    ['DEMO_FAULTS', 'financials:503,financials:500', /financials has two faults/],
    ['DEMO_FAULTS', 'toString:503', /`toString` is not a resource/],
    ['DEMO_FAULT_RATE', '1.5', /must be a number from 0 to 1/],
    ['DEMO_FAULT_RATE', 'often', /must be a number from 0 to 1/],
    ['DEMO_LATENCY_MS', '-1', /must be 0 or more/],
    ['DEMO_LATENCY_MS', '2.5', /whole number/],
    ['DEMO_LATENCY_MS', '1e9', /at most 600000/],
    ['DEMO_ADMIN', 'yes', /must be true or false/],
  ])('%s=%s: one line naming it', async (name, value, why) => {
    const read = readDemoSettings({ [name]: value })
    expect(read.ok).toBe(false)
    const message = read.ok ? '' : read.message
    expect(message).toMatch(new RegExp(`^Invalid setting ${name}: `))
    expect(message).toMatch(why)
    expect(message).not.toContain('\n')
    // The endpoint refuses the same value with the same line, and keeps what it had.
    if (name === 'DEMO_ADMIN') return
    await throughAdmin({ DEMO_FAULTS: 'lists:500' })
    expect(await admin('PUT', JSON.stringify({ [name]: value }))).toEqual({
      status: 400,
      body: { error: { status: 400, message } },
    })
    expect((await admin('GET')).body).toEqual({
      DEMO_FAULTS: 'lists:500',
      DEMO_FAULT_RATE: 0,
      DEMO_LATENCY_MS: 0,
    })
  })

  it('an empty variable is unset', () => {
    expect(readDemoSettings({ DEMO_FAULTS: '', DEMO_FAULT_RATE: '', DEMO_LATENCY_MS: '' })).toEqual(
      readDemoSettings({}),
    )
  })
})

describe('/_demo/faults', () => {
  it('shows the settings in force, replaces them all with PUT and clears them with DELETE', async () => {
    fromEnvironment({ DEMO_FAULTS: 'financials:503,contacts:timeout', DEMO_FAULT_RATE: '0.25' })
    expect(await admin('GET')).toEqual({
      status: 200,
      body: {
        DEMO_FAULTS: 'financials:503,contacts:timeout',
        DEMO_FAULT_RATE: 0.25,
        DEMO_LATENCY_MS: 0,
      },
    })
    // A name left out is unset: the rate goes.
    await throughAdmin({ DEMO_FAULTS: 'lookalikes:500' })
    expect((await admin('GET')).body).toEqual({
      DEMO_FAULTS: 'lookalikes:500',
      DEMO_FAULT_RATE: 0,
      DEMO_LATENCY_MS: 0,
    })
    expect((await stack.post(page)).body.errors?.map((e) => e.path)).toEqual([
      ['company', 'lookalikes'],
    ])
    expect(await admin('DELETE')).toEqual({
      status: 200,
      body: { DEMO_FAULTS: '', DEMO_FAULT_RATE: 0, DEMO_LATENCY_MS: 0 },
    })
    expect((await stack.post(page)).body.data).toEqual(healthy)
  })

  it('refuses what is not fault settings, and answers nothing else', async () => {
    const refused = (status: number, message: RegExp) => ({
      status,
      body: { error: { status, message: expect.stringMatching(message) } },
    })
    expect(await admin('PUT', '{"DEMO_FAULT": "lists:500"}')).toEqual(
      refused(400, /^Invalid settings: Unrecognized key: "DEMO_FAULT"/),
    )
    expect(await admin('PUT', '{"DEMO_ADMIN": "true"}')).toEqual(refused(400, /DEMO_ADMIN/))
    expect(await admin('PUT', 'DEMO_FAULTS=lists:500')).toEqual(refused(400, /not JSON/))
    expect(await admin('PUT', '"lists:500"')).toEqual(refused(400, /^Invalid settings: /))
    expect(await admin('PUT', JSON.stringify({ DEMO_FAULTS: 'x'.repeat(20_000) }))).toEqual(
      refused(413, /over 16384 bytes/),
    )
    expect(await admin('POST', '{}')).toEqual(refused(405, /GET, PUT or DELETE/))
    const other = await fetch(`${demo.url}/_demo/other`)
    expect(other.status).toBe(404)
    await other.arrayBuffer()
    // None of these is a call of the REST interface.
    expect(demo.calls()).toEqual([])
  })

  it('survives a caller that goes away in the middle of a PUT', async () => {
    const { hostname, port } = new URL(demo.url)
    const socket = connect(Number(port), hostname)
    await once(socket, 'connect')
    // Node answers 100 Continue as it hands the request to the demo: the demo is reading it.
    socket.write(
      'PUT /_demo/faults HTTP/1.1\r\nHost: demo\r\nExpect: 100-continue\r\nContent-Length: 100\r\n\r\n',
    )
    const [continued] = await once(socket, 'data')
    expect(String(continued)).toMatch(/^HTTP\/1\.1 100 Continue/)
    socket.end('{"DEMO')
    socket.destroy()
    await once(socket, 'close')
    expect(await admin('GET')).toEqual({ status: 200, body: shown(NO_FAULTS) })
  })

  it('is not the gateway’s: the gateway has no such path and never calls it', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const answer = await stack.request({
        method,
        path: '/_demo/faults',
        body: method === 'PUT' ? { DEMO_FAULTS: 'lists:500' } : undefined,
      })
      expect(answer.status).toBe(404)
    }
    expect(demo.calls()).toEqual([])
    expect(demo.faultSettings.DEMO_FAULTS).toBeUndefined()
  })

  describe('beyond loopback', () => {
    const started: DemoUpstream[] = []
    afterAll(() => Promise.all(started.map((d) => d.stop())))
    /** A demo on `host`, called over loopback. */
    async function adminOf(host: string, admin?: boolean) {
      const other = new DemoUpstream({ data: demoData, host, admin })
      started.push(other)
      const { port } = new URL(await other.start())
      const answer = await fetch(`http://127.0.0.1:${port}/_demo/faults`, {
        method: 'PUT',
        body: '{"DEMO_FAULTS": "lists:500"}',
      })
      return { status: answer.status, body: await answer.json(), settings: other.faultSettings }
    }

    it('is refused when the demo listens on every interface, unless DEMO_ADMIN=true', async () => {
      const open = await adminOf('0.0.0.0')
      expect(open.status).toBe(403)
      expect(open.body.error.message).toContain('DEMO_ADMIN=true')
      expect(open.settings.DEMO_FAULTS).toBeUndefined()
      const allowed = await adminOf('0.0.0.0', true)
      expect(allowed.status).toBe(200)
      expect(allowed.settings.DEMO_FAULTS?.text).toBe('lists:500')
    })

    it('is refused on loopback too with DEMO_ADMIN=false', async () => {
      expect((await adminOf('127.0.0.1', false)).status).toBe(403)
    })
  })
})

describe('the stale state', () => {
  // The cache's clock (Date) moves only when the test moves it.
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] })
  })
  afterAll(() => {
    vi.useRealTimers()
  })

  it('a fault on a resource read before and expired since: the page is served stale, and says so', async () => {
    const query = `{ list(listId: ${bigList.id}) { name } }`
    const first = await cached.post(query)
    expect(first.body.errors).toBeUndefined()
    vi.setSystemTime(Date.now() + 1100)
    const put = await fetch(`${cached.demo.adminUrl}`, {
      method: 'PUT',
      body: JSON.stringify({ DEMO_FAULTS: 'list:503' }),
    })
    expect(put.status).toBe(200)
    await put.arrayBuffer()
    const stale = await cached.post(query)
    expect(stale.body.data).toEqual(first.body.data)
    expect(stale.body.extensions?.cache).toEqual({ stale: true, staleReads: 1 })
    expect(cached.demo.calls().map((call) => call.status)).toEqual([200, 503, 503, 503])
  })
})
