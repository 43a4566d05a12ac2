import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { Agent, fetch as undiciFetch } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { DemoUpstream } from '../../src/demo-upstream/server.js'
import { demoData } from '../support/fixtures.js'
import { startGateway } from '../support/gateway-process.js'
import { freePort, waitForOutput } from '../support/process.js'

/**
 * SIGTERM: the gateway process drains (operations in flight finish, idle and half-sent
 * connections close, new ones are refused) and exits 0, at SHUTDOWN_TIMEOUT_MS at the latest.
 */

const sockets: Socket[] = []
const timers: NodeJS.Timeout[] = []
afterEach(() => {
  for (const timer of timers.splice(0)) clearInterval(timer)
  for (const socket of sockets.splice(0)) socket.destroy()
})

describe('drain on SIGTERM', () => {
  const upstream = new DemoUpstream({ data: demoData, tokens: ['caller-token'] })
  let url = ''
  beforeAll(async () => {
    url = await upstream.start()
  })
  afterAll(() => upstream.stop())
  afterEach(() => upstream.reset())
  const query = JSON.stringify({ query: '{ lists(first: 1) { totalCount } }' })
  const headers = { 'content-type': 'application/json', authorization: 'Bearer caller-token' }

  it('finishes the operation in flight on its keep-alive connection, closes it, refuses new ones and exits 0', async () => {
    const port = await freePort()
    const run = startGateway({
      PORT: String(port),
      UPSTREAM_URL: url,
      SHUTDOWN_TIMEOUT_MS: '20000',
    })
    await run.ready
    const agent = new Agent({ keepAliveTimeout: 60_000 })
    const base = `http://127.0.0.1:${port}`
    // An idle keep-alive connection, and a busy one whose operation the upstream holds.
    await (await undiciFetch(`${base}/health`, { dispatcher: agent })).text()
    const held = upstream.hold('/v1/lists')
    const busy = undiciFetch(`${base}/graphql`, {
      method: 'POST',
      headers,
      body: query,
      dispatcher: agent,
    })
    await upstream.waitForCalls((calls) => calls.length === 1)
    run.child.kill('SIGTERM')
    await waitForOutput(run, /draining/)
    // An impatient second signal changes nothing.
    run.child.kill('SIGTERM')
    // No new connection is taken.
    await expect(fetch(`${base}/health`)).rejects.toThrow()
    held.release()
    const answer = await busy
    expect(answer.status).toBe(200)
    expect(answer.headers.get('connection')).toBe('close')
    expect(await answer.json()).toMatchObject({
      data: { lists: { totalCount: demoData.lists.length } },
    })
    expect(await run.exited).toBe(0)
    expect(run.output().stdout).toContain('"msg":"drained"')
    await agent.close()
  })

  it('closes a keep-alive connection whose streamed response began before SIGTERM as soon as the stream ends, and exits then', async () => {
    const port = await freePort()
    const run = startGateway({
      PORT: String(port),
      UPSTREAM_URL: url,
      SHUTDOWN_TIMEOUT_MS: '30000',
    })
    await run.ready
    const held = upstream.hold(/^\/v1\/lists\/[^/]+\/companies$/)
    const client = await rawConnection(port)
    client.socket.write(
      request('POST', '/graphql', {
        body: JSON.stringify({
          query:
            '{ lists(first: 1) { nodes { name ... @defer { companies(first: 2) { nodes { name } } } } } }',
        }),
        headers: { ...headers, accept: 'multipart/mixed' },
      }),
    )
    // The first part went out before the drain: its headers promised a keep-alive connection.
    await client.received((text) => text.includes('"hasNext":true'))
    expect(client.text()).toMatch(/^HTTP\/1\.1 200/)
    expect(client.text().toLowerCase()).toContain('connection: keep-alive')
    run.child.kill('SIGTERM')
    await waitForOutput(run, /draining/)
    held.release()
    await client.received((text) => text.includes('"hasNext":false') && text.endsWith('0\r\n\r\n'))
    // Empty lines between requests keep the connection from idling out (RFC 9112 §2.2 lets a
    // client send them): waiting for Node's keep-alive timeout would now mean waiting for
    // SHUTDOWN_TIMEOUT_MS, so no clock is read here.
    timers.push(setInterval(() => client.socket.write('\r\n'), 500))
    await client.closed
    expect(await run.exited).toBe(0)
    expect(run.output().stdout).not.toContain('SHUTDOWN_TIMEOUT_MS reached')
    expect(run.output().stdout).toContain('"msg":"drained"')
  })

  it('closes connections with no request in flight when the drain starts (silent, partial headers, partial body) and still answers the complete one', async () => {
    const port = await freePort()
    const run = startGateway({
      PORT: String(port),
      UPSTREAM_URL: url,
      SHUTDOWN_TIMEOUT_MS: '30000',
      UPSTREAM_TIMEOUT_MS: '120000',
    })
    await run.ready
    const silent = await rawConnection(port)
    const partialHeaders = await rawConnection(port)
    partialHeaders.socket.write('POST /graphql HTTP/1.1\r\nHost: gateway.test\r\nContent-Ty')
    const partialBody = await rawConnection(port)
    partialBody.socket.write(request('POST', '/graphql', { body: query, headers }).slice(0, -10))
    // Connected after the others, so the gateway accepted them before this one's request.
    const held = upstream.hold('/v1/lists')
    const complete = await rawConnection(port)
    complete.socket.write(request('POST', '/graphql', { body: query, headers }))
    await upstream.waitForCalls((calls) => calls.length === 1)
    run.child.kill('SIGTERM')
    await Promise.all([silent.closed, partialHeaders.closed, partialBody.closed])
    // No response was promised to those three: they got none.
    expect([silent, partialHeaders, partialBody].map((c) => c.text())).toEqual(['', '', ''])
    // The complete request is still being answered.
    expect(complete.text()).toBe('')
    held.release()
    await complete.closed
    expect(complete.text()).toMatch(/^HTTP\/1\.1 200/)
    expect(complete.text().toLowerCase()).toContain('connection: close')
    expect(complete.text()).toContain(`"lists":{"totalCount":${demoData.lists.length}}`)
    expect(await run.exited).toBe(0)
    expect(run.output().stdout).not.toContain('SHUTDOWN_TIMEOUT_MS reached')
  })

  it('exits at SHUTDOWN_TIMEOUT_MS even when a readiness check still waits for the upstream', async () => {
    const port = await freePort()
    const run = startGateway({
      PORT: String(port),
      UPSTREAM_URL: url,
      SHUTDOWN_TIMEOUT_MS: '1000',
      UPSTREAM_TIMEOUT_MS: '120000',
    })
    await run.ready
    const held = upstream.hold('/v1/lists')
    const probe = fetch(`http://127.0.0.1:${port}/ready`)
      .then((response) => response.status)
      .catch(() => 'cut')
    await upstream.waitForCalls((calls) => calls.length === 1)
    run.child.kill('SIGTERM')
    // The upstream still holds the readiness call (released only after the exit): closing the
    // upstream client did not keep the process past its deadline.
    expect(await run.exited).toBe(0)
    expect(await probe).toBe('cut')
    expect(run.output().stdout).toContain('SHUTDOWN_TIMEOUT_MS reached')
    expect(run.output().stdout).toMatch(/exiting before the upstream client/)
    held.release()
  })

  it('exits 0 at SHUTDOWN_TIMEOUT_MS when an operation is still running, cutting it', async () => {
    const port = await freePort()
    const run = startGateway({ PORT: String(port), UPSTREAM_URL: url, SHUTDOWN_TIMEOUT_MS: '300' })
    await run.ready
    const held = upstream.hold('/v1/lists')
    const stuck = fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers,
      body: query,
    })
      .then(() => 'answered')
      .catch(() => 'cut')
    await upstream.waitForCalls((calls) => calls.length === 1)
    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(0)
    // The upstream still holds the read: the process did not wait for it.
    expect(await stuck).toBe('cut')
    expect(run.output().stdout).toContain('SHUTDOWN_TIMEOUT_MS reached')
    held.release()
  })
})

/** An HTTP/1.1 request as bytes on the wire. */
function request(
  method: string,
  path: string,
  { body, headers }: { body: string; headers: Record<string, string> },
) {
  const lines = [`${method} ${path} HTTP/1.1`, 'host: gateway.test']
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  lines.push(`content-length: ${Buffer.byteLength(body)}`, '', body)
  return lines.join('\r\n')
}

/**
 * A plain TCP connection to the gateway (closed in afterEach): what it received so far, a wait
 * for what it receives, and `closed` once the gateway closed it.
 */
async function rawConnection(port: number) {
  const socket = connect(port, '127.0.0.1')
  sockets.push(socket)
  socket.on('error', () => {}) // writes after the gateway closed it
  let text = ''
  const waiters = new Set<() => void>()
  socket.on('data', (chunk) => {
    text += chunk
    for (const waiter of waiters) waiter()
  })
  const closed = once(socket, 'close').then(() => undefined)
  await once(socket, 'connect')
  return {
    socket,
    closed,
    text: () => text,
    received: (predicate: (text: string) => boolean) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (predicate(text)) {
            waiters.delete(check)
            resolve()
          }
        }
        waiters.add(check)
        check()
        void closed.then(() => {
          if (waiters.delete(check)) reject(new Error(`closed after receiving: ${text}`))
        })
      }),
  }
}
