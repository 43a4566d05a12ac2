import { createGatewayRuntime } from '@graphql-hive/gateway-runtime'
import { composeServices } from '@theguild/federation-composition'
import { GraphQLScalarType, parse } from 'graphql'
import { createSchema, createYoga } from 'graphql-yoga'
import { afterAll, describe, expect, it } from 'vitest'
import { bigList } from '../support/fixtures.js'
import { serve } from '../support/serve.js'
import { demoToken, startStack } from '../support/stack.js'

/**
 * The gateway composed into a supergraph for real (docs/federation.md): its `_service` SDL and a
 * CRM subgraph written here, which adds a field to Company, composed with
 * @theguild/federation-composition and served by Hive Gateway's runtime on loopback. One query
 * through the router reads both; the REST calls it causes are those of the same query asked of
 * the gateway directly.
 */

const stack = await startStack({ subgraph: true })
const companies = await serve(stack.gateway.yoga)

/**
 * The CRM: an account manager per company, resolved from the reference alone. It pages its notes
 * the Relay way, so it has a PageInfo too.
 */
const crmSdl = /* GraphQL */ `
  extend schema
    @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key", "@shareable"])
  enum Country { BE NL FR }
  type Company @key(fields: "country number") {
    country: Country!
    number: String!
    "Who looks after the account."
    accountManager: String!
    notes(first: Int): NotePage!
  }
  type NotePage { pageInfo: PageInfo! notes: [String!]! }
  type PageInfo @shareable {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }
`
const managerOf = (reference: { country: string; number: string }) =>
  `manager of ${reference.country} ${reference.number}`
/** The representations the router sent the CRM, per request. */
const crmBatches: unknown[][] = []
const crm = createYoga({
  logging: false,
  schema: createSchema({
    typeDefs: /* GraphQL */ `
      directive @key(fields: String!) repeatable on OBJECT
      directive @shareable on OBJECT
      directive @link(url: String!, import: [String!]) repeatable on SCHEMA
      ${crmSdl}
      scalar _Any
      union _Entity = Company
      type _Service { sdl: String }
      type Query {
        _entities(representations: [_Any!]!): [_Entity]!
        _service: _Service!
      }
    `,
    resolvers: {
      _Any: new GraphQLScalarType({ name: '_Any' }),
      _Entity: { __resolveType: (entity: { __typename: string }) => entity.__typename },
      Query: {
        _service: () => ({ sdl: crmSdl }),
        _entities: (_: unknown, { representations }: { representations: never[] }) => {
          crmBatches.push(representations)
          return representations.map((reference: { country: string; number: string }) => ({
            ...reference,
            accountManager: managerOf(reference),
          }))
        },
      },
    },
  }),
})
const crmServer = await serve(crm)

/** The gateway's SDL as a registry gets it: from `_service`. */
const { body: service } = await stack.post('{ _service { sdl } }')
const sdl = (service.data as { _service: { sdl: string } })._service.sdl
const composed = composeServices([
  { name: 'companies', typeDefs: parse(sdl), url: `${companies.url}/graphql` },
  { name: 'crm', typeDefs: parse(crmSdl), url: `${crmServer.url}/graphql` },
])

const router = createGatewayRuntime({
  supergraph: composed.supergraphSdl ?? '',
  logging: false,
  // The caller's credential goes on to the gateway, which forwards it upstream (docs/federation.md).
  propagateHeaders: {
    fromClientToSubgraphs: ({ request }) => ({
      authorization: request.headers.get('authorization'),
    }),
  },
})
const routerServer = await serve(router)
afterAll(() => router.dispose())

const PAGE = (crmField: string) => /* GraphQL */ `{
  list(listId: ${bigList.id}) {
    name
    companies(first: 5) {
      pageInfo { hasNextPage endCursor }
      nodes {
        id country number name ${crmField}
        financials(first: 1) { nodes { endDate } }
        lookalikes(first: 2) { nodes { name } }
      }
    }
  }
}`

async function viaRouter(query: string) {
  const response = await fetch(`${routerServer.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...demoToken },
    body: JSON.stringify({ query }),
  })
  return {
    status: response.status,
    body: (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] },
  }
}

const restCalls = () =>
  stack.demo
    .calls()
    .map((call) => `${call.path}?${new URLSearchParams(call.query)}`)
    .sort()

describe('the gateway in a supergraph (Hive Gateway runtime)', () => {
  it('composes with a subgraph that extends Company and has a PageInfo of its own', () => {
    expect(composed.errors).toBeUndefined()
    expect(composed.supergraphSdl).toMatch(/accountManager: String! @join__field\(graph: CRM\)/)
    // @composeDirective: the supergraph keeps @semanticNonNull on the gateway's fields.
    expect(composed.supergraphSdl).toMatch(
      /^ {2}\): FinancialConnection @semanticNonNull @join__field\(graph: COMPANIES\)$/m,
    )
  })

  it("one query joins a list's companies with the CRM's field; the REST calls are those of the same query asked directly", async () => {
    const direct = await stack.post(PAGE(''))
    expect(direct.body.errors).toBeUndefined()
    const directCalls = restCalls()
    expect(directCalls.length).toBeGreaterThan(5)
    stack.demo.reset()

    const { status, body } = await viaRouter(PAGE('accountManager'))
    expect([status, body.errors]).toEqual([200, undefined])
    const list = direct.body.data?.list as {
      companies: { nodes: { country: string; number: string }[] }
    }
    expect(body.data).toEqual({
      list: {
        ...list,
        companies: {
          ...list.companies,
          nodes: list.companies.nodes.map((node) => ({
            ...node,
            accountManager: managerOf(node),
          })),
        },
      },
    })
    expect(restCalls()).toEqual(directCalls)
    // The router asked the CRM once, for the five companies, by their key alone.
    expect(crmBatches).toEqual([
      list.companies.nodes.map(({ country, number }) => ({
        __typename: 'Company',
        country,
        number,
      })),
    ])
  })
})
