import { Pool } from 'undici'
import type { DemoCompany } from '../../src/demo-upstream/data.js'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import type { Child } from '../children.js'
import { data } from '../demo-data.js'
import { ONE_COMPANY } from '../queries.js'
import { COMPANY_SPREAD, CONCURRENCY, ROUND_MAX_MS } from './sizes.js'

/**
 * The load, from this process: undici Pools, a closed loop at a fixed concurrency, over one
 * operation per target. Direct REST is this process sending the upstream reads of an operation
 * straight to the demo, as a client of the REST API would.
 */

export interface Op {
  company: DemoCompany
  variables: { country: string; number: string }
  /** Statements the answer must hold: min(5, the company's). */
  statements: number
}

/** One target of the load: one operation, which throws when the answer is not right. */
export interface Target {
  name: string
  /** The process whose CPU time is counted per operation; none for direct REST. */
  child?: Child
  /** Round size × this (direct REST at 0 ms). */
  opsFactor?: number
  once(op: Op): Promise<void>
  close(): Promise<void>
}

export const spread: Op[] = Array.from({ length: COMPANY_SPREAD }, (_, i) => {
  const company = data.companies[
    Math.floor((i * data.companies.length) / COMPANY_SPREAD)
  ] as DemoCompany
  return {
    company,
    variables: { country: company.country, number: company.companyNumber },
    statements: Math.min(5, data.financialsOf(company).length),
  }
})

/**
 * The upstream reads the gateway makes for ONE_COMPANY (its debug log shows them): one, the
 * statements, whose identifier carries name and place.
 */
export const readsOf = (op: Op) => [
  `/v1/companies/${op.company.country}/${encodeURIComponent(op.company.companyNumber)}/financials?limit=500&offset=0`,
]

interface GraphQLAnswer {
  data?: {
    company?: { name: string | null; financials?: { nodes?: unknown[] } } | null
  } | null
  errors?: unknown[]
  extensions?: { cost?: { upstreamCalls?: number } }
}

export async function postGraphQL(
  pool: Pool,
  query: string,
  variables: object,
): Promise<GraphQLAnswer> {
  const response = await pool.request({
    path: '/graphql',
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      authorization: 'Bearer bench',
    },
    body: JSON.stringify({ query, variables }),
  })
  const text = await response.body.text()
  if (response.statusCode !== 200) {
    throw new Error(`HTTP ${response.statusCode}: ${text.slice(0, 200)}`)
  }
  return JSON.parse(text) as GraphQLAnswer
}

export function graphqlTarget(name: string, origin: string, child: Child): Target {
  const pool = new Pool(origin, { connections: CONCURRENCY })
  return {
    name,
    child,
    close: () => pool.close(),
    once: async (op) => {
      const body = await postGraphQL(pool, ONE_COMPANY, op.variables)
      if (body.errors) throw new Error(`errors: ${JSON.stringify(body.errors).slice(0, 200)}`)
      const nodes = body.data?.company?.financials?.nodes
      if (!Array.isArray(nodes) || nodes.length !== op.statements) {
        throw new Error(`wrong answer: ${JSON.stringify(body).slice(0, 200)}`)
      }
    },
  }
}

/** A GET to the demo with its token, as a REST client sends it: the parsed body (throws unless 200). */
export async function restGet<T>(pool: Pool, path: string): Promise<T> {
  const response = await pool.request({
    path,
    method: 'GET',
    headers: { authorization: `Bearer ${DEMO_TOKEN}` },
  })
  const text = await response.body.text()
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`)
  return JSON.parse(text) as T
}

export function directTarget(demoUrl: string, opsFactor = 1): Target {
  const pool = new Pool(demoUrl, { connections: CONCURRENCY })
  return {
    name: opsFactor === 1 ? 'direct REST' : `direct REST (${opsFactor} × ops)`,
    opsFactor,
    close: () => pool.close(),
    once: async (op) => {
      // The reads of one operation, in parallel, as a client would send them.
      await Promise.all(
        readsOf(op).map(async (path) => {
          const body = await restGet<{ data?: unknown[] }>(pool, path)
          if (body.data?.length !== op.statements) {
            throw new Error(`wrong answer: ${JSON.stringify(body).slice(0, 200)}`)
          }
        }),
      )
    },
  }
}

/**
 * `total` operations over the spread (from `offset`), `CONCURRENCY` in flight: each starts when
 * one ends; none starts after `minMs` once `total` have, nor after ROUND_MAX_MS.
 */
export async function closedLoop(target: Target, total: number, offset = 0, minMs = 0) {
  const durations: number[] = []
  const firstFailures: string[] = []
  let failures = 0
  let next = 0
  const started = performance.now()
  const more = () => {
    const elapsed = performance.now() - started
    return (next < total || elapsed < minMs) && elapsed < ROUND_MAX_MS
  }
  const worker = async () => {
    while (more()) {
      const op = spread[(offset + next++) % spread.length] as Op
      const begun = performance.now()
      try {
        await target.once(op)
      } catch (error) {
        failures++
        if (firstFailures.length < 3) {
          const message = error instanceof Error ? error.message : String(error)
          firstFailures.push(`${op.company.country} ${op.company.companyNumber}: ${message}`)
        }
      }
      durations.push(performance.now() - begun)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  const seconds = (performance.now() - started) / 1000
  durations.sort((a, b) => a - b)
  return { count: durations.length, seconds, durations, failures, firstFailures }
}
