import { Pool } from 'undici'
import { listId } from '../demo-data.js'
import { TRAVERSAL } from '../queries.js'
import { median } from '../stats.js'
import { postGraphQL, restGet } from './load.js'
import { TRAVERSAL_CONNECTIONS, TRAVERSAL_RUNS, TRAVERSAL_WARM_UPS } from './sizes.js'

/** The traversal's wall time, one at a time, through a GraphQL server or as direct REST reads. */

export interface Traversal {
  label: string
  runs: number[]
  median: number
  calls: number
  failures: string[]
}

/**
 * TRAVERSAL_RUNS traversals one after the other, after TRAVERSAL_WARM_UPS; wall time of each.
 * `once` makes one and returns its upstream calls.
 */
async function timeTraversals(label: string, once: () => Promise<number>): Promise<Traversal> {
  const failures: string[] = []
  let calls = 0
  const timed = async () => {
    const started = performance.now()
    try {
      calls = await once()
    } catch (error) {
      failures.push(error instanceof Error ? error.message.slice(0, 200) : String(error))
    }
    return performance.now() - started
  }
  for (let i = 0; i < TRAVERSAL_WARM_UPS; i++) await timed()
  failures.length = 0
  const runs: number[] = []
  for (let i = 0; i < TRAVERSAL_RUNS; i++) runs.push(await timed())
  return { label, runs, median: median(runs), calls, failures }
}

/** Traversals through a GraphQL server; its calls as the gateway reports them (bare yoga: NaN, shown as -). */
export async function traversal(origin: string, label: string): Promise<Traversal> {
  const pool = new Pool(origin, { connections: 1 })
  try {
    return await timeTraversals(label, async () => {
      const body = await postGraphQL(pool, TRAVERSAL, { listId, companies: 40 })
      if (body.errors) throw new Error(JSON.stringify(body.errors))
      return body.extensions?.cost?.upstreamCalls ?? Number.NaN
    })
  } finally {
    await pool.close()
  }
}

interface Identified {
  identifier: { country: string; companyNumber: string }
}

/**
 * The traversal's upstream reads sent by this process straight to the demo, each as soon as
 * what it needs is in hand and each distinct read once, as the best REST client would: no
 * GraphQL, no validation. Its wall time is the floor of the traversal on this machine.
 */
export function directTraversal(demoUrl: string) {
  const pool = new Pool(demoUrl, { connections: TRAVERSAL_CONNECTIONS })
  const once = async () => {
    const reads = new Map<string, Promise<unknown>>()
    const read = <T>(path: string): Promise<T> => {
      let answer = reads.get(path)
      if (!answer) {
        answer = restGet(pool, path)
        reads.set(path, answer)
      }
      return answer as Promise<T>
    }
    const of = (c: Identified['identifier'], resource: string) =>
      `/v1/companies/${c.country}/${encodeURIComponent(c.companyNumber)}/${resource}`
    const statement = 'financials?limit=500&offset=0'
    const [, page] = await Promise.all([
      read(`/v1/lists/${listId}`),
      read<{ data: Identified[] }>(`/v1/lists/${listId}/companies?limit=40&offset=0`),
    ])
    await Promise.all(
      page.data.map(({ identifier }) =>
        Promise.all([
          read(of(identifier, statement)),
          read(of(identifier, 'relationships')),
          read<{ data: { companyId: Identified['identifier'] }[] }>(
            of(identifier, 'lookalikes'),
          ).then((lookalikes) =>
            Promise.all(lookalikes.data.slice(0, 3).map((l) => read(of(l.companyId, statement)))),
          ),
        ]),
      ),
    )
    return reads.size
  }
  return {
    run: () => timeTraversals(`direct REST, ${TRAVERSAL_CONNECTIONS} connections`, once),
    close: () => pool.close(),
  }
}

/** Whether the gateway and the bare yoga server give the same traversal. */
export async function sameTraversal(gateway: string, bare: string) {
  const answers = await Promise.all(
    [gateway, bare].map(async (origin) => {
      const pool = new Pool(origin, { connections: 1 })
      try {
        return JSON.stringify((await postGraphQL(pool, TRAVERSAL, { listId, companies: 40 })).data)
      } finally {
        await pool.close()
      }
    }),
  )
  return answers[0] === answers[1]
}
