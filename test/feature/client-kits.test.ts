import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NetworkStatus } from '@apollo/client'
import {
  type ConcreteRequest,
  type Environment,
  fetchQuery,
  getSingularSelector,
  type ReaderFragment,
} from 'relay-runtime'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  gatewayErrors as apolloErrors,
  createApolloClient,
  responseLogOf,
} from '../../clients/apollo/index.js'
import {
  createEnvironment,
  GatewayRequestError,
  gatewayErrors,
  gatewayRecords,
} from '../../clients/relay/index.js'
import { graphql } from '../gql/index.js'
import listCompaniesFragment from '../gql/relay/listCompanies.graphql.js'
import listCompaniesPaginationQuery from '../gql/relay/listCompaniesPaginationQuery.graphql.js'
import listCompaniesQueryNode, {
  type listCompaniesQuery,
} from '../gql/relay/listCompaniesQuery.graphql.js'
import listPageFinancials from '../gql/relay/listPage_financials.graphql.js'
import listPageOwners from '../gql/relay/listPage_owners.graphql.js'
import listPageListsQueryNode, {
  type listPageListsQuery,
} from '../gql/relay/listPageListsQuery.graphql.js'
import listPageQueryNode, { type listPageQuery } from '../gql/relay/listPageQuery.graphql.js'
import { bigList } from '../support/fixtures.js'
import { root } from '../support/process.js'
import { serve } from '../support/serve.js'
import { demoToken, startStack } from '../support/stack.js'

/**
 * The client kits (clients/relay/, clients/apollo/) against the gateway on a real port, as an app
 * uses them: @defer and @stream in parts, persisted documents, refusals and field errors in the
 * kits' error shape with the request id, the stale flag, and a failed "load more" that keeps the
 * rows. The same kits run in a browser in test/e2e/examples.test.ts.
 */

// The tests' manifest (codegen's persistedDocuments) plus one Relay operation persisted by id.
const RELAY_ID = 'relay:listPageListsQuery'
const manifest = join(await mkdtemp(join(tmpdir(), 'client-kits-')), 'persisted.json')
await writeFile(
  manifest,
  JSON.stringify({
    ...JSON.parse(await readFile(new URL('test/gql/persisted-documents.json', root), 'utf8')),
    [RELAY_ID]: listPageListsQueryNode.params.text,
  }),
)
const stack = await startStack({ persistedDocuments: manifest })
const { demo } = stack
const urlOf = async (client: { gateway: typeof stack.gateway }) =>
  `${(await serve(client.gateway.yoga)).url}/graphql`
const url = await urlOf(stack)
const persistedOnlyUrl = await urlOf(stack.replica({ persistedDocumentsOnly: true }))
const stingyUrl = await urlOf(stack.replica({ maxOperationCost: 1 }))
const staleUrl = await urlOf(stack.replica({ cacheTtlSeconds: 1, cacheStaleSeconds: 3600 }))

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

/** The upstream paths of the reads a deferred part waits for, or a page reads. */
const financials = /\/financials$/
const relationships = /\/relationships$/
const listMembers = /\/v1\/lists\/\d+\/companies$/
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

describe('the Relay kit (clients/relay/)', () => {
  const environment = (at = url, headers: Record<string, string> = demoToken) =>
    createEnvironment({ url: at, headers })
  /** A fragment as a component reads it (useFragment), and whether it is pending. */
  const read = (env: Environment, fragment: ReaderFragment, ref: unknown) => {
    const snapshot = env.lookup(getSingularSelector(fragment, ref))
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

  it("hands a deferred fragment's error to the component (@catch), coded and with the request id", async () => {
    demo.inject({ path: relationships, status: 500 })
    const env = environment(url, { ...demoToken, 'x-request-id': 'relay-defer-1' })
    const last = (await pages(env)).at(-1)
    const owners = last?.companies?.map((company) => company.owners.data)
    expect(last?.companies?.map((company) => company.financials.pending)).toEqual([false, false])
    for (const data of owners ?? []) {
      const shareholders = (data as { shareholders: { ok: boolean; errors?: unknown } })
        .shareholders
      expect(shareholders.ok).toBe(false)
      expect(gatewayErrors(shareholders.errors)).toEqual([
        expect.objectContaining({
          code: 'UPSTREAM_ERROR',
          retryable: true,
          requestId: 'relay-defer-1',
        }),
      ])
    }
    expect(gatewayRecords(env).log.get('listPageQuery')).toEqual({
      requestId: 'relay-defer-1',
      stale: false,
      staleReads: 0,
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

  it('sends a persisted operation by its id alone (relay-compiler persistConfig: no text)', async () => {
    const persisted: ConcreteRequest = {
      ...listPageListsQueryNode,
      params: { ...listPageListsQueryNode.params, id: RELAY_ID, text: null },
    }
    const seen = await emitted(
      fetchQuery<listPageListsQuery>(environment(persistedOnlyUrl), persisted, {
        first: 2,
        stream: false,
      }),
    )
    expect(seen.at(-1)?.lists?.nodes.map((l) => l.listId)).toEqual(
      demo.data.lists.slice(0, 2).map((l) => l.id),
    )
  })

  it('errors the query with the coded refusal of an HTTP 4xx answer, and its request id', async () => {
    const env = environment(stingyUrl, { ...demoToken, 'x-request-id': 'relay-refused-1' })
    const refused = emitted(
      fetchQuery<listPageQuery>(env, listPageQueryNode, { listId: list.id, first: 2 }),
    )
    const error = await refused.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GatewayRequestError)
    expect((error as GatewayRequestError).status).toBe(400)
    expect(gatewayErrors(error)).toEqual([
      expect.objectContaining({
        code: 'QUERY_TOO_COSTLY',
        retryable: false,
        requestId: 'relay-refused-1',
      }),
    ])
    expect(demo.calls()).toEqual([])
  })

  describe('load more', () => {
    const HANDLE = '__listCompanies_companies_connection'
    /** The rows the fragment shows, and its cursor. */
    const shown = (env: Environment, ref: unknown) => {
      const { data } = read(env, listCompaniesFragment, ref)
      const companies = (
        data as { companies: { edges: { node: { name: string | null } }[] } | null }
      ).companies
      return companies?.edges.map((edge) => edge.node.name) ?? null
    }
    const names = (count: number) => list.members.slice(0, count).map((m) => m.company.name ?? null)

    it('keeps the rows shown when a page fails, records its error, and a retry appends the page', async () => {
      const env = environment()
      const [first] = await emitted(
        fetchQuery<listCompaniesQuery>(env, listCompaniesQueryNode, { listId: list.id, count: 2 }),
      )
      const ref = first?.list
      // A fragment reference names the record it reads: the list's.
      const id = (ref as unknown as { __id: string }).__id
      expect(shown(env, ref)).toEqual(names(2))
      const cursor = (env.getStore().getSource().get(`client:${id}:${HANDLE}:pageInfo`) ?? {}) as {
        endCursor?: string
      }
      const page = () =>
        emitted(
          fetchQuery(env, listCompaniesPaginationQuery, { id, count: 2, cursor: cursor.endCursor }),
        )
      demo.inject({ path: listMembers, status: 503 })
      await page()
      expect(shown(env, ref)).toEqual(names(2))
      expect(gatewayRecords(env).failedPages.get(id, HANDLE)).toEqual([
        expect.objectContaining({ code: 'UPSTREAM_ERROR', retryable: true }),
      ])
      demo.reset()
      await page()
      expect(shown(env, ref)).toEqual(names(4))
      expect(gatewayRecords(env).failedPages.get(id, HANDLE)).toBeUndefined()
    })
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

const ApolloCompanies = graphql(`
  query ApolloListCompanies($listId: Int!, $first: Int!, $after: String) {
    list(listId: $listId) {
      id
      companies(first: $first, after: $after) {
        nodes { name }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`)

const client = (at = url, headers: Record<string, string> = demoToken, persisted = false) =>
  createApolloClient({ url: at, headers, persisted })

describe('the Apollo Client kit (clients/apollo/)', () => {
  const watch = (onData?: () => void, headers?: Record<string, string>) =>
    emitted(
      client(url, headers).watchQuery({
        query: ApolloPage,
        variables: { listId: list.id, first: members.length },
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
    const results = await watch(() => held.release())
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

  it("gives a deferred part's error with the rest of the page (errorPolicy 'all' by default), coded, with the request id", async () => {
    demo.inject({ path: relationships, status: 500 })
    const last = (await watch(undefined, { ...demoToken, 'x-request-id': 'apollo-defer-1' })).at(-1)
    expect(last?.dataState).toBe('complete')
    expect(last?.data).toEqual(
      pageWith((c) => ({
        financials: typed({ ...financialsOf(c), nodes: financialsOf(c).nodes.map(typed) }),
        shareholders: null,
      })),
    )
    expect(apolloErrors(last?.error)).toEqual(
      members.map((_, i) =>
        expect.objectContaining({
          path: ['list', 'companies', 'nodes', i, 'shareholders'],
          code: 'UPSTREAM_ERROR',
          retryable: true,
          requestId: 'apollo-defer-1',
        }),
      ),
    )
  })

  it.each([
    [
      'an operation over the budget (HTTP 400, graphql-response+json)',
      stingyUrl,
      {},
      'QUERY_TOO_COSTLY',
    ],
    [
      'a path the gateway does not serve (HTTP 404, application/json)',
      `${url}-typo`,
      {},
      'NOT_FOUND',
    ],
  ])('hands the coded errors of %s to the app like any other', async (_, at, extra, code) => {
    const result = await client(at, { ...demoToken, 'x-request-id': 'apollo-refused-1' }).query({
      query: ApolloCompanies,
      variables: { listId: list.id, first: 2, ...extra } as { listId: number; first: number },
    })
    expect(result.data).toBeUndefined()
    expect(apolloErrors(result.error)).toEqual([
      expect.objectContaining({ code, retryable: false, requestId: 'apollo-refused-1' }),
    ])
    expect(demo.calls()).toEqual([])
  })

  it('sends a persisted document by its hash alone, where only persisted documents run', async () => {
    const result = await client(persistedOnlyUrl, demoToken, true).query({
      query: ApolloCompanies,
      variables: { listId: list.id, first: 2 },
    })
    expect(result.error).toBeUndefined()
    expect(result.data?.list?.companies?.nodes.map((c) => c.name)).toEqual(
      members.map((c) => c.name ?? null),
    )
  })

  it('keeps the rows shown when a page fails, hands its error over, and a retry appends the page', async () => {
    const apollo = client()
    const query = apollo.watchQuery({
      query: ApolloCompanies,
      variables: { listId: list.id, first: 2 },
    })
    const first = (await emitted(query, { last: (r) => r.dataState === 'complete' })).at(-1)
    const after = first?.data?.list?.companies?.pageInfo?.endCursor
    const rows = () =>
      apollo
        .readQuery({ query: ApolloCompanies, variables: { listId: list.id, first: 2 } })
        ?.list?.companies?.nodes.map((c) => c.name)
    const names = (count: number) => list.members.slice(0, count).map((m) => m.company.name ?? null)
    demo.inject({ path: listMembers, status: 503 })
    // fetchMore rejects (its errorPolicy is its own: 'none'); useLoadMore hands the error over.
    const failed = await query.fetchMore({ variables: { after } }).catch((error: unknown) => error)
    expect(apolloErrors(failed)).toEqual([
      expect.objectContaining({ code: 'UPSTREAM_ERROR', path: ['list', 'companies'] }),
    ])
    expect(rows()).toEqual(names(2))
    demo.reset()
    const retried = await query.fetchMore({ variables: { after } })
    expect(retried.error).toBeUndefined()
    expect(rows()).toEqual(names(4))
    query.stop()
  })
})

describe('the stale flag (extensions.cache.stale), handed over by both kits', () => {
  // The clock the cache reads stands still but when moved: the entry expires however slow the run.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })
  const expire = async (warm: () => Promise<unknown>) => {
    await warm()
    vi.setSystemTime(Date.now() + 1100)
    demo.inject({ path: listMembers, status: 503 })
  }

  it('Relay: useResponseInfo reads it from the log of the environment', async () => {
    const env = createEnvironment({ url: staleUrl, headers: demoToken })
    const run = () =>
      emitted(
        fetchQuery<listCompaniesQuery>(
          env,
          listCompaniesQueryNode,
          { listId: list.id, count: 2 },
          { fetchPolicy: 'network-only' },
        ),
      )
    await expire(run)
    await run()
    expect(gatewayRecords(env).log.get('listCompaniesQuery')).toEqual(
      expect.objectContaining({ stale: true, staleReads: 1 }),
    )
  })

  it('Apollo: useResponseInfo reads it from the log of the client', async () => {
    const apollo = client(staleUrl)
    const run = () =>
      apollo.query({
        query: ApolloCompanies,
        variables: { listId: list.id, first: 2 },
        fetchPolicy: 'network-only',
      })
    await expire(run)
    const result = await run()
    expect(result.error).toBeUndefined()
    expect(responseLogOf(apollo).get('ApolloListCompanies')).toEqual(
      expect.objectContaining({ stale: true, staleReads: 1 }),
    )
  })
})
