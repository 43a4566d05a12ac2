import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Pool } from 'undici'

/**
 * The floor of a read (bench/read-path.ts): a bare Node process that makes the traversal's
 * upstream reads level by level with undici and `JSON.parse`, and nothing else: no GraphQL, no
 * validation, no cache. `GET /traverse?times=n` runs n traversals one after the other and
 * answers the number of reads each made. Run as a child: UPSTREAM_URL, UPSTREAM_TOKEN, LIST_ID,
 * COMPANIES; prints `floor listening at <url>`.
 */

const upstreamUrl = process.env.UPSTREAM_URL
if (!upstreamUrl) throw new Error('UPSTREAM_URL is required')
const token = process.env.UPSTREAM_TOKEN ?? 'demo-token'
const listId = Number(process.env.LIST_ID ?? 1001)
const companies = Number(process.env.COMPANIES ?? 40)
const pool = new Pool(upstreamUrl, { connections: 512 })

interface Key {
  country: string
  companyNumber: string
}

async function traverse(): Promise<number> {
  const reads = new Map<string, Promise<unknown>>()
  const read = <T>(path: string): Promise<T> => {
    let answer = reads.get(path)
    if (!answer) {
      answer = pool
        .request({ path, method: 'GET', headers: { authorization: `Bearer ${token}` } })
        .then(async (response) => JSON.parse(await response.body.text()))
      reads.set(path, answer)
    }
    return answer as Promise<T>
  }
  const of = (c: Key, resource: string) =>
    `/v1/companies/${c.country}/${encodeURIComponent(c.companyNumber)}/${resource}`
  const statements = 'financials?limit=500&offset=0'
  const [, page] = await Promise.all([
    read(`/v1/lists/${listId}`),
    read<{ data: { identifier: Key }[] }>(
      `/v1/lists/${listId}/companies?limit=${companies}&offset=0`,
    ),
  ])
  await Promise.all(
    page.data.map(({ identifier }) =>
      Promise.all([
        read(of(identifier, statements)),
        read(of(identifier, 'relationships')),
        read<{ data: { companyId: Key }[] }>(of(identifier, 'lookalikes')).then((lookalikes) =>
          Promise.all(lookalikes.data.slice(0, 3).map((l) => read(of(l.companyId, statements)))),
        ),
      ]),
    ),
  )
  return reads.size
}

const server = createServer(async (request, response) => {
  const times = Number(new URL(request.url ?? '/', 'http://floor').searchParams.get('times') ?? 1)
  let reads = 0
  for (let i = 0; i < times; i++) reads = await traverse()
  response.end(String(reads))
})
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo
  console.log(`floor listening at http://127.0.0.1:${port}`)
})
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => void pool.close().then(() => process.exit(0)))
  })
}
