import { expect, it } from 'vitest'
import { demoToken, startStack } from '../support/stack.js'

/**
 * Review of issue 27, "crash or stall the server with a cheap request": a 6 KB document, within
 * every shape limit (1,685 tokens of 2,000, depth 4, no alias, no credential needed when the
 * caller's token is forwarded), makes graphql-js's OverlappingFieldsCanBeMerged compare every
 * pair of 30 fragments × 12 identical `nodes { listId }` fields: 0.3–0.8 s of CPU on the event
 * loop before any check of the gateway's own runs (measured 762, 626, 561, 700 ms). Four at once
 * held an unrelated, cached one-company query for 4.3 s (7 ms alone). Each variant (a space more)
 * misses yoga's document cache.
 */

const stack = await startStack({ cacheTtlSeconds: 300 })

function document(variant: number) {
  const fragments = 30
  let text = `{ lists { ${Array.from({ length: fragments }, (_, i) => `...f${i}`).join(' ')} } }`
  for (let i = 0; i < fragments; i++) {
    text += ` fragment f${i} on ListConnection { ${'nodes{listId} '.repeat(12)} }`
  }
  return text + ' '.repeat(variant)
}

async function cpuMs(query: string) {
  const before = process.cpuUsage()
  await stack.request({ headers: { accept: 'application/json', ...demoToken }, body: { query } })
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

it('a 6 KB document within the shape limits costs little CPU', async () => {
  expect(document(0).length).toBeLessThan(6_500)
  const runs = [await cpuMs(document(1)), await cpuMs(document(2)), await cpuMs(document(3))]
  const median = runs.sort((a, b) => a - b)[1] ?? 0
  // Observed: a median of 400–800 ms per request. A cached one-company query takes about 5 ms.
  expect(median).toBeLessThan(150)
})

it('four such documents at once do not hold up an unrelated cached query', async () => {
  const cached = `{ company(country: BE, number: "0922178703") { name } }`
  const headers = { accept: 'application/json', ...demoToken }
  await stack.request({ headers, body: { query: cached } })
  const started = Date.now()
  const heavy = [11, 12, 13, 14].map((v) =>
    stack.request({ headers, body: { query: document(v) } }),
  )
  await stack.request({ headers, body: { query: cached } })
  const waited = Date.now() - started
  await Promise.all(heavy)
  // Observed: 4,279 ms.
  expect(waited).toBeLessThan(1_000)
})
