import { expect, it } from 'vitest'
import { startStack } from './support/stack.js'

/** Hostile review of compiled execution: many clients going away mid-operation, with faults. */
const stack = await startStack({ upstreamToken: 'demo-token' })
const { demo } = stack
const company = demo.data.companies.find((c) => demo.data.relationshipsOf(c).parents.length > 0)
if (!company) throw new Error('demo data lacks a company with shareholders')
const at = `country: ${company.country}, number: "${company.companyNumber}"`
const gid = Buffer.from(`Company:${company.country}:${company.companyNumber}`).toString('base64url')
const queries = [
  `{ company(${at}) { contacts(first: 1) { totalCount } shareholders { company { name financials(first: 1) { totalCount } } } } slow: lists(first: 1) { totalCount } }`,
  `{ nodes(ids: ["${gid}", "${gid}"]) { ... on Company { name financials(first: 2) { totalCount } } } lists(first: 1) { totalCount } }`,
  `{ lists(first: 3) { nodes { name companies(first: 2) { nodes { name lookalikes(first: 2) { nodes { name } } } } } } }`,
]

it('no unhandled rejection, the gateway still answers', async () => {
  const unhandled: unknown[] = []
  const onUnhandled = (e: unknown) => unhandled.push(e)
  process.on('unhandledRejection', onUnhandled)
  demo.inject({ path: /contacts|\/v1\/lists$/, status: 500, delayMs: 40 })
  demo.inject({ path: /financials/, status: 400, delayMs: 80 })
  demo.inject({ path: /./, delayMs: 30 })
  const post = async (query: string, abortMs: number) => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), abortMs)
    try {
      const r = await stack.gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        signal: controller.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: 'Bearer demo-token',
        },
        body: JSON.stringify({ query }),
      })
      await r.text()
    } catch {}
  }
  for (let round = 0; round < 6; round++) {
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => post(queries[i % queries.length] ?? '', (i * 7) % 150)),
    )
  }
  await new Promise((r) => setTimeout(r, 1500))
  process.off('unhandledRejection', onUnhandled)
  demo.reset()
  const after = await stack.post(`{ company(${at}) { name } }`)
  expect(after.body.data).toBeTruthy()
  expect(unhandled).toEqual([])
}, 60_000)
