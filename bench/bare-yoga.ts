import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createSchema, createYoga } from 'graphql-yoga'
import { Pool } from 'undici'

/**
 * `npm run bench`'s baseline: a bare graphql-yoga server with the gateway's schema shape for the
 * one-company query (Company { name place financials(first) { nodes { … } } }) and the traversal
 * (List { name companies }, Company { lookalikes shareholders }), resolvers that read the demo
 * upstream with an undici Pool, and nothing else: no cost estimate, cache, DataLoader, response
 * validation, logging, metrics or tracing. It makes the same upstream reads as the gateway (for
 * the one-company query one, GET /v1/companies/{country}/{number}/financials?limit=500&offset=0:
 * every statement, ordered newest first here, and name and place from its identifier).
 *
 * Run by bench/run.ts as a child process: UPSTREAM_URL, UPSTREAM_TOKEN, UPSTREAM_MAX_CONNECTIONS
 * (32 unless set), PORT (0: any); prints `bare-yoga listening at <url>` once it listens; stops
 * on SIGTERM/SIGINT.
 */

const upstreamUrl = process.env.UPSTREAM_URL
if (!upstreamUrl) throw new Error('UPSTREAM_URL is required')
const token = process.env.UPSTREAM_TOKEN ?? 'demo-token'
const pool = new Pool(upstreamUrl, {
  connections: Number(process.env.UPSTREAM_MAX_CONNECTIONS ?? 32),
})

interface Identifier {
  country: string
  companyNumber: string
  name?: string | null
  place?: string | null
}
interface FinancialsBody {
  identifier: Identifier
  data: { endDate: string }[]
  pagination: { total: number }
}
/**
 * A company as resolvers see it: its key, its name and place when the answer that led to it
 * carried them, and this request's read of its statements.
 */
interface CompanyRef {
  country: string
  number: string
  known?: Identifier
  statements?: Promise<FinancialsBody>
}

/**
 * BARE_CACHE=1: answers kept in memory for good, parsed, by path: the stack's ceiling for a
 * cached operation (what the gateway's cache of reads is compared with).
 */
const kept = process.env.BARE_CACHE === '1' ? new Map<string, unknown>() : undefined

async function read<T>(path: string): Promise<T> {
  const known = kept?.get(path)
  if (known) return known as T
  const response = await pool.request({
    path,
    method: 'GET',
    headers: { authorization: `Bearer ${token}` },
  })
  const body = await response.body.text()
  if (response.statusCode !== 200) throw new Error(`upstream answered ${response.statusCode}`)
  const parsed = JSON.parse(body) as T
  kept?.set(path, parsed)
  return parsed
}

const companyPath = (company: CompanyRef, resource: string) =>
  `/v1/companies/${company.country}/${encodeURIComponent(company.number)}/${resource}`
const companyRef = (key: Identifier): CompanyRef => ({
  country: key.country,
  number: key.companyNumber,
  ...('name' in key ? { known: key } : {}),
})

/** Every statement of the company in one read (up to 500), made once per request. */
function statementsOf(company: CompanyRef) {
  company.statements ??= read<FinancialsBody>(companyPath(company, 'financials?limit=500&offset=0'))
  return company.statements
}

/** Name or place from the answer that led to the company, else from its statements' read. */
async function identity(company: CompanyRef, field: 'name' | 'place') {
  if (company.known) return company.known[field] ?? null
  return (await statementsOf(company)).identifier[field] ?? null
}

const schema = createSchema<Record<string, never>>({
  typeDefs: /* GraphQL */ `
    enum Country { BE NL FR }
    scalar Date
    scalar DateTime
    type Query {
      company(country: Country!, number: String!): Company
      list(listId: Int!): List
    }
    type List { name: String! companies(first: Int): ListCompanyConnection! }
    type ListCompanyConnection { edges: [ListCompanyEdge!]! }
    type ListCompanyEdge { matchedSince: DateTime! node: Company! }
    type Company {
      country: Country!
      number: String!
      name: String
      place: String
      financials(first: Int): FinancialConnection!
      lookalikes(first: Int): LookalikeConnection!
      shareholders: [Shareholder!]!
    }
    type LookalikeConnection { edges: [LookalikeEdge!]! }
    type LookalikeEdge { score: Float! node: Company! }
    type Shareholder { percentage: Float company: Company }
    type FinancialConnection { nodes: [Financial!]! totalCount: Int! }
    type Financial {
      startDate: Date!
      endDate: Date!
      dateReceived: Date
      healthIndicator: Int
      jointCommitteeCodes: [String!]!
      profitability: Profitability!
      liquidity: Liquidity!
      solvency: Solvency!
      people: People!
    }
    type Profitability { revenue: Float grossMargin: Float ebitda: Float ebit: Float netProfit: Float }
    type Liquidity {
      cash: Float cashFlow: Float netWorkingCapital: Float netWorkingCapitalRequirement: Float
      currentRatio: Float quickRatio: Float
    }
    type Solvency {
      totalAssets: Float equity: Float capital: Float retainedEarnings: Float debt: Float
      longTermDebt: Float longTermDebtFinancial: Float longTermDebtAccountsPayable: Float
      shortTermDebt: Float shortTermDebtFinancial: Float shortTermDebtAccountsPayable: Float
    }
    type People { employees: Int newHires: Int employeeMaleRatio: Float employeeFemaleRatio: Float }
  `,
  resolvers: {
    Query: {
      company: (_root: unknown, args: { country: string; number: string }): CompanyRef => ({
        country: args.country,
        number: args.number,
      }),
      // The list's details and its companies are read at once, as the gateway does for a list
      // whose type it knows.
      list: (_root: unknown, args: { listId: number }) => ({ id: args.listId }),
    },
    List: {
      name: async (list: { id: number }) =>
        (await read<{ data: { name: string }[] }>(`/v1/lists/${list.id}`)).data[0]?.name,
      companies: async (list: { id: number }, args: { first?: number | null }) => {
        const page = await read<{ data: { identifier: Identifier; matchedSince: string }[] }>(
          `/v1/lists/${list.id}/companies?limit=${args.first ?? 20}&offset=0`,
        )
        return {
          edges: page.data.map((member) => ({
            matchedSince: member.matchedSince,
            node: companyRef(member.identifier),
          })),
        }
      },
    },
    Company: {
      name: (company: CompanyRef) => identity(company, 'name'),
      place: (company: CompanyRef) => identity(company, 'place'),
      financials: async (company: CompanyRef, args: { first?: number | null }) => {
        const body = await statementsOf(company)
        const newest = body.data.toSorted((a, b) => b.endDate.localeCompare(a.endDate))
        return { nodes: newest.slice(0, args.first ?? 20), totalCount: body.pagination.total }
      },
      lookalikes: async (company: CompanyRef, args: { first?: number | null }) => {
        const body = await read<{ data: { companyId: Identifier; score: number }[] }>(
          companyPath(company, 'lookalikes'),
        )
        return {
          edges: body.data
            .slice(0, args.first ?? 20)
            .map((l) => ({ score: l.score, node: companyRef(l.companyId) })),
        }
      },
      shareholders: async (company: CompanyRef) => {
        const body = await read<{
          data: { parents: { identifier: Identifier | null; percentage?: number | null }[] }
        }>(companyPath(company, 'relationships'))
        return body.data.parents.map((p) => ({
          percentage: p.percentage ?? null,
          company: p.identifier && companyRef(p.identifier),
        }))
      },
    },
  },
})

const yoga = createYoga({
  schema,
  graphqlEndpoint: '/graphql',
  graphiql: false,
  landingPage: false,
})
const server = createServer(yoga)
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo
  console.log(`bare-yoga listening at http://127.0.0.1:${port}/graphql`)
})

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.closeAllConnections()
    server.close(() => void pool.close().then(() => process.exit(0)))
  })
}
