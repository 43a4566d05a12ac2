import { describe, expect, it } from 'vitest'
import { DEMO_TOKEN, type ReceivedCall } from '../../src/demo-upstream/server.js'
import { companyPath, demoOverHttp } from '../support/demo-answers.js'
import { bigList } from '../support/fixtures.js'

/**
 * What the demo upstream gives the tests that drive it: requests held and released, waiting for
 * calls, one event log of receipts and answers, injected faults and latency.
 */

const { demo, get } = demoOverHttp()

describe('1e: hold and release, waitForCalls, the event log', () => {
  const lists = (calls: ReceivedCall[]) => calls.filter((c) => c.path === '/v1/lists')

  it('receives held requests at once and answers them only after release()', async () => {
    const held = demo.hold('/v1/lists')
    const pending = [get('/v1/lists'), get('/v1/lists?type=SMART'), get('/v1/lists?type=STATIC')]
    await demo.waitForCalls((calls) => lists(calls).length === 3)
    // Another path is answered meanwhile.
    expect((await get(`/v1/lists/${bigList.id}`)).status).toBe(200)
    expect(lists(demo.calls()).map((c) => c.answeredSeq)).toEqual([undefined, undefined, undefined])

    held.release()
    expect((await Promise.all(pending)).map((a) => a.status)).toEqual([200, 200, 200])
    const calls = demo.calls()
    const heldCalls = lists(calls)
    const other = calls.find((c) => c.path !== '/v1/lists')
    // All three were received before any of them was answered, and after the other one was.
    const lastReceived = Math.max(...heldCalls.map((c) => c.seq))
    const firstAnswered = Math.min(...heldCalls.map((c) => c.answeredSeq ?? Number.NaN))
    expect(lastReceived).toBeLessThan(firstAnswered)
    expect(other?.answeredSeq).toBeLessThan(firstAnswered)
    expect(heldCalls.map((c) => c.status)).toEqual([200, 200, 200])
  })

  it('holds by regular expression, and reset() releases what is held', async () => {
    demo.hold(/\/financials$/)
    const pending = get(`${companyPath}/financials`)
    const unheld = await get(`${companyPath}/lookalikes`)
    expect(unheld.status).toBe(200)
    await demo.waitForCalls((calls) => calls.some((c) => c.path.endsWith('/financials')))
    demo.reset()
    expect((await pending).status).toBe(200)
  })

  it('waitForCalls resolves at once when the calls already satisfy it, and on answers too', async () => {
    await demo.waitForCalls((calls) => calls.length === 0)
    const held = demo.hold('/v1/lists')
    const pending = get('/v1/lists')
    await demo.waitForCalls((calls) => calls.length === 1)
    const answered = demo.waitForCalls((calls) => calls[0]?.answeredSeq !== undefined)
    held.release()
    await answered
    await pending
    await expect(
      demo.waitForCalls(() => {
        throw new Error('broken predicate')
      }),
    ).rejects.toThrow('broken predicate')
  })

  it('numbers receipts and answers on one counter', async () => {
    await Promise.all([get('/v1/lists'), get(`${companyPath}/lookalikes`), get('/v1/nothing')])
    const calls = demo.calls()
    const events = calls.flatMap((c) => [c.seq, c.answeredSeq ?? Number.NaN])
    expect(new Set(events).size).toBe(6)
    for (const c of calls) expect(c.answeredSeq).toBeGreaterThan(c.seq)
    expect(calls.map((c) => c.status).sort()).toEqual([200, 200, 404])
  })
})

describe('test hooks', () => {
  it('logs every call with path, query, token and language', async () => {
    await get(`${companyPath}/contacts?limit=2&q=x`, { 'accept-language': 'NL' })
    expect(demo.calls()).toEqual([
      {
        seq: expect.any(Number),
        at: expect.any(Number),
        answeredSeq: expect.any(Number),
        status: 200,
        method: 'GET',
        path: `${companyPath}/contacts`,
        query: { limit: '2', q: 'x' },
        token: DEMO_TOKEN,
        language: 'NL',
      },
    ])
  })

  it('injects status, Retry-After and malformed bodies per path, a given number of times', async () => {
    demo.inject({ path: '/v1/lists', status: 429, retryAfter: '3', times: 1 })
    const limited = await get('/v1/lists')
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '3'])
    expect((await get('/v1/lists')).status).toBe(200)

    demo.inject({ path: /\/financials$/, body: '{"data": [' })
    const broken = await fetch(`${demo.url}${companyPath}/financials`, {
      headers: { authorization: `Bearer ${DEMO_TOKEN}` },
    })
    expect(await broken.text()).toBe('{"data": [')
  })

  it('applies a fault with a rate to that share of the requests, the same ones after every reset', async () => {
    const statuses = async () => {
      demo.reset()
      demo.inject({ path: '/v1/lists', status: 503, rate: 0.1 })
      const answers = []
      for (let i = 0; i < 400; i++) answers.push((await get('/v1/lists')).status)
      return answers
    }
    const first = await statuses()
    const failed = first.filter((status) => status === 503).length
    expect(failed).toBeGreaterThan(20)
    expect(failed).toBeLessThan(60)
    expect(first.filter((status) => status !== 503).every((status) => status === 200)).toBe(true)
    expect(await statuses()).toEqual(first)
  })

  it('delays answers by latencyMs: received, not yet answered, then answered', async () => {
    // No wall-clock measure: timers run only after pending promise callbacks, so a delayed
    // answer cannot have been sent when waitForCalls sees the receipt; an undelayed one has been.
    demo.latencyMs = 5
    const slow = get('/v1/lists')
    await demo.waitForCalls((calls) => calls.length === 1)
    expect(demo.calls()[0]?.answeredSeq).toBeUndefined()
    expect((await slow).status).toBe(200)
    expect(demo.calls()[0]?.answeredSeq).toBeGreaterThan(demo.calls()[0]?.seq ?? Number.NaN)

    demo.reset()
    const fast = get('/v1/lists')
    await demo.waitForCalls((calls) => calls.length === 1)
    expect(demo.calls()[0]?.answeredSeq).toEqual(expect.any(Number))
    await fast
  })
})
