import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { Agent, fetch as undiciFetch } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { DemoUpstream } from '../../src/demo-upstream/server.js'
import { claes, companyArgs, demoData } from '../support/fixtures.js'
import { startGateway } from '../support/gateway-process.js'
import { freePort, waitForOutput } from '../support/process.js'

/**
 * SIGTERM: the gateway process drains. It keeps listening and answers every request it receives
 * (served, or 503 once SHUTDOWN_TIMEOUT_MS is up), each with `Connection: close`, closing a
 * connection only after a response, so none is reset; it exits 0 once nothing is in flight and
 * no request has come for 500 ms. A request held by the upstream keeps the drain open where a
 * test needs it open: no test depends on how fast the machine is.
 */

const sockets: Socket[] = []
const agents: Agent[] = []
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  await Promise.all(agents.splice(0).map((agent) => agent.destroy()))
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

  /** The gateway with `env`, and an operation of it held by the upstream (released by the test). */
  async function gatewayWithHeldOperation(env: Record<string, string>) {
    const port = await freePort()
    const run = startGateway({ PORT: String(port), UPSTREAM_URL: url, ...env })
    await run.ready
    const base = `http://127.0.0.1:${port}`
    const held = upstream.hold('/v1/lists')
    const busy = undiciFetch(`${base}/graphql`, { method: 'POST', headers, body: query })
      .then(async (answer) => ({
        status: answer.status,
        connection: answer.headers.get('connection'),
        body: await answer.text(),
      }))
      .catch((error: Error) => ({ status: 'cut', connection: null, body: String(error.cause) }))
    await upstream.waitForCalls((calls) => calls.length === 1)
    return { port, base, run, held, busy }
  }

  it('answers every request sent across the signal, on keep-alive and new connections, with Connection: close, and exits 0 once they stop', async () => {
    const { base, run, held, busy } = await gatewayWithHeldOperation({
      SHUTDOWN_TIMEOUT_MS: '60000',
    })
    const keepAlive = new Agent({ keepAliveTimeout: 60_000 })
    agents.push(keepAlive)
    const company = JSON.stringify({ query: `{ company(${companyArgs(claes)}) { name } }` })
    let draining = false
    const answers: { draining: boolean; status: number; connection: string | null }[] = []
    const errors: unknown[] = []
    /** A GET /health on the keep-alive connection, or a POST on a connection of its own. */
    const send = async (onItsOwn: boolean) => {
      const sentDraining = draining
      const ownConnection = new Agent()
      agents.push(ownConnection)
      try {
        const answer = await undiciFetch(
          `${base}/${onItsOwn ? 'graphql' : 'health'}`,
          onItsOwn
            ? { method: 'POST', headers, body: company, dispatcher: ownConnection }
            : { dispatcher: keepAlive },
        )
        await answer.text()
        const connection = answer.headers.get('connection')
        answers.push({ draining: sentDraining, status: answer.status, connection })
      } catch (error) {
        errors.push(error)
      }
    }
    // An idle keep-alive connection before the signal, used at once after it.
    await send(false)
    run.child.kill('SIGTERM')
    const atOnce = send(false)
    // One sender per kind of connection, until 20 requests sent in the drain were answered.
    const sender = async (onItsOwn: boolean) => {
      while (errors.length === 0 && answers.filter((a) => a.draining).length < 20) {
        await send(onItsOwn)
      }
    }
    const senders = [sender(false), sender(true)]
    await waitForOutput(run, /draining/)
    draining = true
    await Promise.all([atOnce, ...senders])
    expect(errors).toEqual([])
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200))
    const inDrain = answers.filter((a) => a.draining).map((a) => a.connection)
    expect(inDrain).toEqual(inDrain.map(() => 'close'))
    // /ready says not to send more; the request asking it is answered too.
    const ready = await undiciFetch(`${base}/ready`, { dispatcher: keepAlive })
    expect([ready.status, ready.headers.get('connection')]).toEqual([503, 'close'])
    held.release()
    const answer = await busy
    expect(answer).toMatchObject({ status: 200, connection: 'close' })
    expect(JSON.parse(answer.body)).toMatchObject({
      data: { lists: { totalCount: demoData.lists.length } },
    })
    // No request came after those: it exits on its own, long before SHUTDOWN_TIMEOUT_MS.
    expect(await run.exited).toBe(0)
    expect(run.output().stdout).not.toContain('SHUTDOWN_TIMEOUT_MS reached')
    expect(run.output().stdout).toContain('"msg":"drained"')
    await expect(fetch(`${base}/health`)).rejects.toThrow()
  })

  it('keeps a connection whose keep-alive stream began before SIGTERM open after the stream, and closes it after its next answer', async () => {
    const { port, run, held, busy } = await gatewayWithHeldOperation({
      SHUTDOWN_TIMEOUT_MS: '60000',
    })
    const streamHeld = upstream.hold(/^\/v1\/lists\/[^/]+\/companies$/)
    const client = await rawConnection(port)
    client.socket.write(
      request('POST', '/graphql', {
        body: JSON.stringify({
          query:
            '{ list(listId: 1001) { name ... @defer { companies(first: 2) { nodes { name } } } } }',
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
    streamHeld.release()
    await client.received((text) => text.includes('"hasNext":false') && text.endsWith('0\r\n\r\n'))
    // The stream ended; the connection is still open, and its next request is answered.
    const streamed = client.text().length
    client.socket.write(request('GET', '/health', { body: '', headers: {} }))
    await client.closed
    const next = client.text().slice(streamed)
    expect(next).toMatch(/^HTTP\/1\.1 200/)
    expect(next.toLowerCase()).toContain('connection: close')
    held.release()
    expect(await busy).toMatchObject({ status: 200, connection: 'close' })
    expect(await run.exited).toBe(0)
    expect(run.output().stdout).not.toContain('SHUTDOWN_TIMEOUT_MS reached')
  })

  it('answers a request completed after SIGTERM on a silent or half-sent connection, and at the exit closes one that never sent a whole request, writing nothing', async () => {
    const { port, run, held, busy } = await gatewayWithHeldOperation({
      SHUTDOWN_TIMEOUT_MS: '60000',
    })
    const silent = await rawConnection(port)
    const partialHeaders = await rawConnection(port)
    partialHeaders.socket.write('POST /graphql HTTP/1.1\r\nHost: gateway.test\r\nContent-Ty')
    const partialBody = await rawConnection(port)
    const whole = request('POST', '/graphql', { body: query, headers })
    partialBody.socket.write(whole.slice(0, -10))
    run.child.kill('SIGTERM')
    await waitForOutput(run, /draining/)
    silent.socket.write(request('GET', '/health', { body: '', headers: {} }))
    await silent.closed
    expect(silent.text()).toMatch(/^HTTP\/1\.1 200/)
    expect(silent.text().toLowerCase()).toContain('connection: close')
    partialBody.socket.write(whole.slice(-10))
    held.release()
    await partialBody.closed
    expect(partialBody.text()).toMatch(/^HTTP\/1\.1 200/)
    expect(partialBody.text().toLowerCase()).toContain('connection: close')
    expect(partialBody.text()).toContain(`"lists":{"totalCount":${demoData.lists.length}}`)
    expect(await busy).toMatchObject({ status: 200, connection: 'close' })
    // No request came after those: it exits, and closes the connection that never sent one.
    expect(await run.exited).toBe(0)
    await partialHeaders.closed
    expect(partialHeaders.text()).toBe('')
    expect(run.output().stdout).not.toContain('SHUTDOWN_TIMEOUT_MS reached')
  })

  it('at SHUTDOWN_TIMEOUT_MS answers 503 to a readiness check still waiting for the upstream, and exits 0', async () => {
    const port = await freePort()
    const run = startGateway({
      PORT: String(port),
      UPSTREAM_URL: url,
      SHUTDOWN_TIMEOUT_MS: '1000',
      UPSTREAM_TIMEOUT_MS: '120000',
    })
    await run.ready
    const held = upstream.hold('/v1/lists')
    const probe = fetch(`http://127.0.0.1:${port}/ready`).then((response) => [
      response.status,
      response.headers.get('connection'),
    ])
    await upstream.waitForCalls((calls) => calls.length === 1)
    run.child.kill('SIGTERM')
    // The upstream still holds the readiness call (released only after the exit): closing the
    // upstream client did not keep the process past its deadline.
    expect(await run.exited).toBe(0)
    expect(await probe).toEqual([503, 'close'])
    expect(run.output().stdout).toContain('SHUTDOWN_TIMEOUT_MS reached')
    expect(run.output().stdout).toMatch(/exiting before the upstream client/)
    held.release()
  })

  it('at SHUTDOWN_TIMEOUT_MS answers 503 to an operation still running while a client keeps sending, and exits 0', async () => {
    const { base, run, held, busy } = await gatewayWithHeldOperation({
      SHUTDOWN_TIMEOUT_MS: '1000',
    })
    run.child.kill('SIGTERM')
    await waitForOutput(run, /draining/)
    // A client that keeps sending until the gateway is gone: each request is answered, until
    // one finds no listener (or, connecting the instant the listener closed, is refused by
    // the kernel's accept queue: no request was received there).
    const answers: { status: number; connection: string | null }[] = []
    let refused: unknown
    while (refused === undefined) {
      try {
        const answer = await fetch(`${base}/health`)
        answers.push({ status: answer.status, connection: answer.headers.get('connection') })
      } catch (error) {
        refused = error
      }
    }
    expect(await run.exited).toBe(0)
    expect(answers).toEqual(answers.map(() => ({ status: 200, connection: 'close' })))
    expect(await busy).toMatchObject({ status: 503, connection: 'close' })
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
