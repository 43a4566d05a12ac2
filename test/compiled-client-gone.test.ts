import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../src/observability/logger.js'
import { logSink } from './support/log-sink.js'
import { startStack } from './support/stack.js'

const log = logSink()
const stack = await startStack({ upstreamToken: 'demo-token' }, createLogger('info', log.stream))
const plain = stack.replica({ compiledExecution: 'never' })
const { demo } = stack
const list = demo.data.lists.find((l) => l.amountOfCompanies >= 10)
if (!list) throw new Error('demo data lacks a list of 10 companies')

const query = `{ list(listId: ${list.id}) { companies(first: 10) { nodes { name financials(first: 2) { totalCount } shareholders { name } } } } }`

async function send(gateway: Pick<typeof stack, 'gateway'>, signal?: AbortSignal) {
  try {
    const response = await gateway.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
      body: JSON.stringify({ query }),
      ...(signal && { signal }),
    })
    return await response.text()
  } catch (error) {
    return `rejected: ${String(error)}`
  }
}

/** Compiled execution, when the client goes away mid-operation: no warning graphql-js has not. */
describe('a client that goes away mid-operation', () => {
  it('logs nothing more when compiled than with graphql-js', async () => {
    await send(stack)
    await send(plain)
    const warnings = async (gateway: Pick<typeof stack, 'gateway'>) => {
      demo.reset()
      demo.latencyMs = 60
      log.clear()
      const controller = new AbortController()
      const answer = send(gateway, controller.signal)
      // Gone during the second round of reads.
      await sleep(90)
      controller.abort()
      await answer
      // Whatever the abandoned reads log, they log by now.
      await sleep(500)
      return log
        .lines()
        .filter((line) => (line.level as number) >= 40)
        .map((line) => line.msg)
    }
    expect(await warnings(stack)).toEqual(await warnings(plain))
  })
})
