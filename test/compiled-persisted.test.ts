import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startStack } from './support/stack.js'

const dir = mkdtempSync(join(tmpdir(), 'persisted-'))
const manifest = join(dir, 'manifest.json')
const probe = await startStack({ upstreamToken: 'demo-token', compiledExecution: 'never' })
const company = probe.demo.data.companies.find((c) => c.name !== undefined)
if (!company) throw new Error('demo data')
const at = `country: ${company.country}, number: "${company.companyNumber}"`
writeFileSync(
  manifest,
  JSON.stringify({
    'sha256:aaa': `query Q($n: Int = 1) {\n  ok: company(${at}) { name financials(first: $n) { totalCount } }\n  bad: company(country: BE, number: "x") { name }\n  company(${at}) { number }\n}`,
  }),
)
const stack = await startStack({ upstreamToken: 'demo-token', persistedDocuments: manifest })
const plain = stack.replica({ compiledExecution: 'never' })

/** Persisted documents (by POST and GET) run compiled answer as through graphql-js. */
describe('persisted documents', () => {
  it.each([
    ['POST documentId', 'POST'],
    ['GET documentId', 'GET'],
  ])('%s answers as graphql-js does', async (_n, method) => {
    const send = async (gw: Pick<typeof stack, 'gateway'>) => {
      const init: RequestInit = {
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: 'Bearer demo-token',
        },
      }
      let url = 'http://gateway.test/graphql'
      if (method === 'POST')
        init.body = JSON.stringify({ documentId: 'sha256:aaa', variables: { n: 2 } })
      else url += `?documentId=sha256:aaa&variables=${encodeURIComponent(JSON.stringify({ n: 2 }))}`
      const r = await gw.gateway.yoga.fetch(url, init)
      return { status: r.status, body: await r.json() }
    }
    await send(stack)
    const compiled = await send(stack)
    const reference = await send(plain)
    expect(compiled).toEqual(reference)
  })
})
