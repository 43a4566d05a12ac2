import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { RateLimiter } from '../../src/upstream/rate-limit.js'
import { bigList } from '../support/fixtures.js'
import { type Client, startStack } from '../support/stack.js'

/**
 * UPSTREAM_RATE_LIMIT's turns are shared round robin between the callers of one token: a caller
 * with a burst of reads cannot take every turn, another caller's read gets the turn after the
 * one the burst holds. In one process (across replicas: redis-rate-limit.test.ts). CALLER_RATE_LIMIT holds
 * one caller, not the others. Asserts on the order the turns were given in (on a busy machine
 * requests reach the upstream later than their turns, and not always in their order), and on
 * times only as lower bounds: a busy machine makes calls later, never earlier.
 */

const rate = 10
const heavyQuery = `{ list(listId: ${bigList.id}) { companies(first: 30) { nodes { financials(first: 1) { totalCount } } } } }`
const outsider = bigList.members[100]?.company
if (!outsider) throw new Error('list 1001 has fewer than 101 members')
const lightQuery = `{ company(country: ${outsider.country}, number: "${outsider.companyNumber}") { financials(first: 1) { totalCount } } }`
const lightPath = `/v1/companies/${outsider.country}/${outsider.companyNumber}/financials`

const stack = await startStack({ upstreamToken: DEMO_TOKEN, upstreamRateLimit: rate })
const { demo } = stack
const ask = (replica: Client, caller: string, query: string) =>
  replica.post(query, {}, { authorization: `Bearer ${caller}` })

/**
 * Until the test ends, the turns taken, in order: each request's caller (its lane), whether it
 * may be sent now (`go`) or waits `waitMs` for the turn reserved for it (`later`).
 */
function watchTurns() {
  const turns: { lane: string; kind: string; waitMs: number }[] = []
  const turn = RateLimiter.prototype.turn
  const spy = vi.spyOn(RateLimiter.prototype, 'turn').mockImplementation(function (
    this: RateLimiter,
    tokenKey,
    lane,
    maxWaitMs,
  ) {
    const record = (waitMs: number) =>
      turns.push({ lane, kind: waitMs > 0 ? 'later' : 'go', waitMs })
    const taken = turn.call(this, tokenKey, lane, maxWaitMs)
    if (typeof taken === 'number') record(taken)
    else void taken.then(record)
    return taken
  })
  onTestFinished(() => spy.mockRestore())
  return turns
}

/** The turns the first caller was given before the second asked, and the second's first turn. */
function turnsOf(turns: { lane: string; kind: string; waitMs: number }[]) {
  const [first, second] = [...new Set(turns.map((t) => t.lane))]
  const asked = turns.findIndex((t) => t.lane === second)
  const before = turns.slice(0, asked).filter((t) => t.lane === first && t.kind === 'go').length
  return { before, given: turns[asked] }
}

/** A heavy caller's 32 reads on `heavy`, then one read of another caller on `light`. */
async function burstThenOneRead(heavy: Client, light: Client) {
  const turns = watchTurns()
  const burst = ask(heavy, 'heavy', heavyQuery)
  // The bucket's second's worth went to the burst; its next reads wait for their turns.
  await demo.waitForCalls((calls) => calls.length >= rate)
  const one = ask(light, 'light', lightQuery)
  const [heavyAnswer, lightAnswer] = await Promise.all([burst, one])
  expect(heavyAnswer.body.errors).toBeUndefined()
  expect(lightAnswer.body.errors).toBeUndefined()
  expect(demo.calls()).toHaveLength(33)
  return turnsOf(turns)
}

/**
 * When the light caller asked, the heavy caller's burst held one reserved turn (at most 1/rate
 * away): the light read's turn is reserved right after it, at most two turns away. With turns in
 * arrival order it would come after every read of the burst still waiting: about 2 s away.
 */
const notBehindTheBurst = ({ before, given }: ReturnType<typeof turnsOf>) => {
  expect(before).toBeGreaterThanOrEqual(rate)
  // On a busy machine the bucket may have refilled before the burst's next reads asked: then it
  // goes at once (waitMs 0), which keeps the promise too.
  expect(given?.waitMs).toBeLessThanOrEqual((2 * 1000) / rate + 1)
}

describe('in one process', () => {
  it('a light caller’s read takes the turn after the one a heavy caller’s burst holds, not the 33rd', async () => {
    notBehindTheBurst(await burstThenOneRead(stack, stack))
  })
})

describe('CALLER_RATE_LIMIT', () => {
  it('holds one caller to its rate while another caller’s read goes at once', async () => {
    const limited = stack.replica({ upstreamRateLimit: undefined, callerRateLimit: 2 })
    const turns = watchTurns()
    const started = Date.now()
    const heavy = ask(
      limited,
      'heavy',
      `{ list(listId: ${bigList.id}) { companies(first: 4) { nodes { financials(first: 1) { totalCount } } } } }`,
    )
    // Its bucket holds one second's worth: two reads, then one every 500 ms.
    await demo.waitForCalls((calls) => calls.length >= 2)
    const light = ask(limited, 'light', lightQuery)
    const [heavyAnswer, lightAnswer] = await Promise.all([heavy, light])
    expect(heavyAnswer.body.errors).toBeUndefined()
    expect(lightAnswer.body.errors).toBeUndefined()
    // Its first turn was given as soon as it asked.
    expect(turnsOf(turns).given?.kind).toBe('go')
    const calls = demo.calls()
    expect(calls.map((c) => c.path)).toContain(lightPath)
    const heavyTimes = calls.filter((c) => c.path !== lightPath).map((c) => c.at)
    expect(heavyTimes).toHaveLength(6)
    // The k-th (from 0) comes no earlier than (k - 1) × 500 ms after the first could (a few ms
    // allowed: clocks read whole milliseconds).
    const early = heavyTimes.filter((at, k) => at < started + (k - 1) * 500 - 5)
    expect(early).toEqual([])
  })
})

describe('a read whose turn would come after its deadline', () => {
  const [a, b] = bigList.members.slice(200, 202).map((m) => m.company)
  if (!a || !b) throw new Error('list 1001 has fewer than 202 members')
  const statements = (c: typeof a) =>
    `company(country: ${c.country}, number: "${c.companyNumber}") { financials(first: 1) { totalCount } }`

  it.each([
    ['UPSTREAM_RATE_LIMIT', { upstreamRateLimit: 1 }],
    ['CALLER_RATE_LIMIT', { upstreamRateLimit: undefined, callerRateLimit: 1 }],
  ])(
    '%s=1: refused at once, RATE_LIMITED with the seconds until its turn',
    async (setting, limit) => {
      // One read a second: the second read's turn is a second away, past its 500 ms.
      const limited = stack.replica({ ...limit, upstreamTimeoutMs: 500 })
      const { body } = await limited.post(`{ a: ${statements(a)} b: ${statements(b)} }`)
      const refused = body.errors?.filter((e) => e.extensions?.code === 'RATE_LIMITED')
      expect(refused?.map((e) => e.extensions)).toEqual([
        { code: 'RATE_LIMITED', retryable: true, retryAfterSeconds: 1 },
      ])
      expect(refused?.[0]?.message).toContain(`the rate limit (${setting}) has no turn free`)
      expect(demo.calls()).toHaveLength(1)
    },
  )
})
