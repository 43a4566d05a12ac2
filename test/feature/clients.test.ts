import { CombinedGraphQLErrors, NetworkStatus } from '@apollo/client'
import {
  Environment,
  fetchQuery,
  getSingularSelector,
  type ReaderFragment,
  RecordSource,
  Store,
} from 'relay-runtime'
import { describe, expect, it } from 'vitest'
import { graphql } from '../gql/index.js'
import listPageFinancials from '../gql/relay/listPage_financials.graphql.js'
import listPageOwners from '../gql/relay/listPage_owners.graphql.js'
import listPageListsQueryNode, {
  type listPageListsQuery,
} from '../gql/relay/listPageListsQuery.graphql.js'
import listPageQueryNode, { type listPageQuery } from '../gql/relay/listPageQuery.graphql.js'
import { createApolloClient } from '../support/apollo-client.js'
import { bigList } from '../support/fixtures.js'
import { createNetwork } from '../support/relay-network.js'
import { serve } from '../support/serve.js'
import { demoToken, startStack } from '../support/stack.js'

/**
 * The gateway as two client libraries see it, each through its own network code: relay-runtime
 * with the network layer of docs/clients.md (test/support/relay-network.ts) and Apollo Client
 * with its HttpLink (test/support/apollo-client.ts), over a real port. A page gets its first part
 * while the deferred reads are held upstream, then each deferred part; a deferred part's error
 * reaches the page where each library documents it, and the rest of the page stays.
 */

const stack = await startStack()
const { demo } = stack
const url = `${(await serve(stack.gateway.yoga)).url}/graphql`

const list = bigList
const members = list.members.slice(0, 2).map((member) => member.company)
const financialsOf = (company: (typeof members)[number]) => ({
  totalCount: demo.data.financialsOf(company).length,
  nodes: demo.data
    .financialsOf(company)
    .slice(0, 2)
    .map((f) => ({ endDate: f.endDate })),
})
const shareholdersOf = (company: (typeof members)[number]) =>
  demo.data.relationshipsOf(company).parents.map((p) => ({ name: p.name ?? null }))

/** The upstream paths of the reads a deferred part waits for. */
const financials = /\/financials$/
const relationships = /\/relationships$/
const readsOf = (path: RegExp) => demo.calls().filter((call) => path.test(call.path)).length

interface Source<T> {
  subscribe(observer: { next(value: T): void; error(error: unknown): void; complete(): void }): {
    unsubscribe(): void
  }
}

/**
 * What `source` emits, up to its completion or the first value `last` accepts; `onEach` sees each
 * value as it comes (the tests release held reads there).
 */
function emitted<T>(
  source: Source<T>,
  {
    onEach = () => {},
    last = () => false,
  }: { onEach?: (value: T) => void; last?: (value: T) => boolean } = {},
): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const values: T[] = []
    const subscription = source.subscribe({
      next(value) {
        values.push(value)
        onEach(value)
        if (!last(value)) return
        queueMicrotask(() => subscription.unsubscribe())
        resolve(values)
      },
      error: reject,
      complete: () => resolve(values),
    })
  })
}

describe('relay-runtime, through the network layer of docs/clients.md', () => {
  const environment = () =>
    new Environment({
      network: createNetwork(url, demoToken),
      store: new Store(new RecordSource()),
    })
  /** A company's fragment as a component reads it (useFragment), and whether it is pending. */
  const read = (env: Environment, fragment: ReaderFragment, company: unknown) => {
    const snapshot = env.lookup(getSingularSelector(fragment, company))
    return { data: snapshot.data, pending: snapshot.isMissingData }
  }
  /** The page, as the store has it each time the query emits. */
  const pages = (env: Environment, onEach?: () => void) =>
    emitted(
      fetchQuery<listPageQuery>(env, listPageQueryNode, {
        listId: list.id,
        first: members.length,
      }).map(({ list }) => ({
        list: { name: list?.name, createdAt: list?.createdAt },
        companies: list?.companies?.nodes.map((company) => ({
          name: company.name,
          financials: read(env, listPageFinancials, company),
          owners: read(env, listPageOwners, company),
        })),
      })),
      { onEach },
    )
  const shownList = { name: list.name, createdAt: list.createdAt }

  it('shows the list and its companies while their financials are read, then each deferred fragment', async () => {
    const env = environment()
    const held = demo.hold(financials)
    const seen = await pages(env, () => held.release())
    expect(seen[0]).toEqual({
      list: shownList,
      companies: members.map((company) => ({
        name: company.name ?? null,
        financials: expect.objectContaining({ pending: true }),
        owners: expect.objectContaining({ pending: true }),
      })),
    })
    expect(seen.at(-1)).toEqual({
      list: shownList,
      companies: members.map((company) => ({
        name: company.name ?? null,
        financials: { data: { financials: financialsOf(company) }, pending: false },
        owners: {
          data: { shareholders: { ok: true, value: shareholdersOf(company) } },
          pending: false,
        },
      })),
    })
    expect(readsOf(financials)).toBe(members.length)
  })

  it("a deferred fragment's error reaches the component that reads it (@catch); the other fragments arrive whole", async () => {
    demo.inject({ path: relationships, status: 500 })
    const seen = await pages(environment())
    expect(seen.at(-1)).toEqual({
      list: shownList,
      companies: members.map((company) => ({
        name: company.name ?? null,
        financials: { data: { financials: financialsOf(company) }, pending: false },
        owners: {
          data: {
            shareholders: {
              ok: false,
              // Relay drops the message and keeps the rest: the code is what a component acts on.
              errors: [{ extensions: expect.objectContaining({ code: 'UPSTREAM_ERROR' }) }],
            },
          },
          pending: false,
        },
      })),
    })
  })

  it.each([
    ['a streamed list item by item (@stream), in parts', true],
    ['the same list in one answer (@stream(if: false)), not in parts', false],
  ])('gets %s', async (_what, stream) => {
    const seen = await emitted(
      fetchQuery<listPageListsQuery>(environment(), listPageListsQueryNode, { first: 3, stream }),
    )
    const lists = demo.data.lists.slice(0, 3).map((l) => ({ listId: l.id, name: l.name }))
    expect(seen[0]?.lists?.nodes).toEqual(stream ? lists.slice(0, 1) : lists)
    expect(seen.length > 1).toBe(stream)
    expect(seen.at(-1)?.lists?.nodes).toEqual(lists)
  })
})

const ApolloPage = graphql(`
  query ApolloListPage($listId: Int!, $first: Int!) {
    list(listId: $listId) {
      name
      createdAt
      companies(first: $first) {
        nodes {
          name
          ... @defer(label: "financials") { financials(first: 2) { totalCount nodes { endDate } } }
          ... @defer(label: "owners") { shareholders { name } }
        }
      }
    }
  }
`)

describe('Apollo Client 4, through its HttpLink and Defer20220824Handler', () => {
  const watch = (errorPolicy: 'none' | 'all', onData?: () => void) =>
    emitted(
      createApolloClient(url, demoToken).watchQuery({
        query: ApolloPage,
        variables: { listId: list.id, first: members.length },
        errorPolicy,
      }),
      {
        onEach: (result) => result.dataState !== 'empty' && onData?.(),
        // The last part (ready), or an error that ends the query.
        last: (result) => result.networkStatus !== NetworkStatus.streaming && !result.loading,
      },
    )
  const typed = <T extends object>(value: T) => ({ __typename: expect.any(String), ...value })
  const pageWith = (company: (c: (typeof members)[number]) => object) => ({
    list: typed({
      name: list.name,
      createdAt: list.createdAt,
      companies: typed({
        nodes: members.map((c) => typed({ name: c.name ?? null, ...company(c) })),
      }),
    }),
  })

  it('shows the list and its companies while their financials are read (streaming), then the whole page (complete)', async () => {
    const held = demo.hold(financials)
    const results = await watch('none', () => held.release())
    const streaming = results.filter((r) => r.dataState === 'streaming')
    expect(results.map((r) => r.dataState)).toEqual([
      'empty',
      ...streaming.map(() => 'streaming'),
      'complete',
    ])
    expect(streaming[0]?.data).toEqual(pageWith(() => ({})))
    expect(results.at(-1)?.data).toEqual(
      pageWith((c) => ({
        financials: typed({ ...financialsOf(c), nodes: financialsOf(c).nodes.map(typed) }),
        shareholders: shareholdersOf(c).map(typed),
      })),
    )
    expect(readsOf(financials)).toBe(members.length)
  })

  it("a deferred part's error comes with the rest of the page (errorPolicy: 'all'), coded", async () => {
    demo.inject({ path: relationships, status: 500 })
    const last = (await watch('all')).at(-1)
    expect(last?.dataState).toBe('complete')
    expect(last?.data).toEqual(
      pageWith((c) => ({
        financials: typed({ ...financialsOf(c), nodes: financialsOf(c).nodes.map(typed) }),
        shareholders: null,
      })),
    )
    const error = last?.error
    expect(CombinedGraphQLErrors.is(error) && error.errors).toEqual(
      members.map((_, i) =>
        expect.objectContaining({
          path: ['list', 'companies', 'nodes', i, 'shareholders'],
          extensions: expect.objectContaining({ code: 'UPSTREAM_ERROR' }),
        }),
      ),
    )
  })
})
