import { Component, type ReactNode, Suspense } from 'react'
import { graphql, useFragment, useLazyLoadQuery, usePaginationFragment } from 'react-relay'
import { gatewayErrors, useLoadMore, useResponseInfo } from '../../../clients/relay'
import {
  AnswerInfo,
  CompanyRows,
  Errors,
  FinancialsTable,
  ListLinks,
  OwnersList,
  Routes,
} from '../../shared/ui'
import type { AppCompanyOwners$key } from './__generated__/AppCompanyOwners.graphql'
import type { AppCompanyQuery } from './__generated__/AppCompanyQuery.graphql'
import type { AppListCompanies$key } from './__generated__/AppListCompanies.graphql'
import type { AppListQuery } from './__generated__/AppListQuery.graphql'
import type { AppListsQuery } from './__generated__/AppListsQuery.graphql'

/** Whatever a page throws (a refused operation, the network): shown, not a blank page. */
class ErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state = { error: undefined as unknown }
  static getDerivedStateFromError(error: unknown) {
    return { error }
  }
  override render() {
    if (this.state.error !== undefined) return <Errors errors={gatewayErrors(this.state.error)} />
    return this.props.children
  }
}

function Info({ query }: { query: Parameters<typeof useResponseInfo>[0] }) {
  return <AnswerInfo info={useResponseInfo(query)} />
}

const ListsQuery = graphql`
  query AppListsQuery {
    lists(first: 10) @catch {
      edges {
        node {
          id
          listId
          name
          companyCount
        }
      }
    }
  }
`

function ListsPage() {
  const { lists } = useLazyLoadQuery<AppListsQuery>(
    ListsQuery,
    {},
    { fetchPolicy: 'store-and-network' },
  )
  return (
    <main>
      <h1>Lists</h1>
      {lists.ok ? (
        <ListLinks lists={lists.value.edges.map(({ node }) => node)} />
      ) : (
        <Errors errors={gatewayErrors(lists.errors)} />
      )}
      <Info query={ListsQuery} />
    </main>
  )
}

const ListQuery = graphql`
  query AppListQuery($listId: Int!) {
    list(listId: $listId) @catch {
      name
      ...AppListCompanies
    }
  }
`

const ListCompanies = graphql`
  fragment AppListCompanies on List
  @refetchable(queryName: "AppListCompaniesPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 10 }, cursor: { type: "String" }) {
    companies(first: $count, after: $cursor)
      @connection(key: "AppListCompanies_companies")
      @catch {
      totalCount
      edges {
        node {
          id
          country
          number
          name
        }
      }
    }
  }
`

function Companies({ list }: { list: AppListCompanies$key }) {
  const pagination = usePaginationFragment(ListCompanies, list)
  const more = useLoadMore(ListCompanies, pagination, 10)
  const { companies } = pagination.data
  if (!companies.ok) return <Errors errors={gatewayErrors(companies.errors)} />
  return (
    <CompanyRows
      companies={companies.value.edges.map(({ node }) => node)}
      totalCount={companies.value.totalCount}
      more={more}
    />
  )
}

function ListPage({ listId }: { listId: number }) {
  // Shown from the store at once, and read again: a page opened again shows what is new.
  const { list } = useLazyLoadQuery<AppListQuery>(
    ListQuery,
    { listId },
    { fetchPolicy: 'store-and-network' },
  )
  if (!list.ok) return <Errors errors={gatewayErrors(list.errors)} />
  if (!list.value) return <p>No such list.</p>
  return (
    <main>
      <h1>{list.value.name}</h1>
      <Companies list={list.value} />
      <Info query={ListQuery} />
    </main>
  )
}

const CompanyQuery = graphql`
  query AppCompanyQuery($country: Country!, $number: String!) {
    company(country: $country, number: $number) @catch {
      name
      place
      financials(first: 3) @catch {
        edges {
          node {
            endDate
            profitability {
              revenue
            }
          }
        }
      }
      ...AppCompanyOwners @defer
    }
  }
`

const CompanyOwners = graphql`
  fragment AppCompanyOwners on Company {
    shareholders @catch {
      company {
        id
      }
      name
      percentage
    }
  }
`

function Owners({ company }: { company: AppCompanyOwners$key }) {
  const { shareholders } = useFragment(CompanyOwners, company)
  if (!shareholders.ok) return <Errors errors={gatewayErrors(shareholders.errors)} />
  return <OwnersList owners={shareholders.value} />
}

function CompanyPage({ country, number }: { country: string; number: string }) {
  const { company } = useLazyLoadQuery<AppCompanyQuery>(
    CompanyQuery,
    { country: country as AppCompanyQuery['variables']['country'], number },
    { fetchPolicy: 'store-and-network' },
  )
  if (!company.ok) return <Errors errors={gatewayErrors(company.errors)} />
  if (!company.value) return <p>No such company.</p>
  const { name, place, financials } = company.value
  return (
    <main>
      <h1>{name ?? number}</h1>
      <p>{place}</p>
      <h2>Financials</h2>
      {financials.ok ? (
        <FinancialsTable statements={financials.value.edges.map(({ node }) => node)} />
      ) : (
        <Errors errors={gatewayErrors(financials.errors)} />
      )}
      <h2>Shareholders</h2>
      <Suspense fallback={<p>Loading shareholders…</p>}>
        <section aria-label="shareholders">
          <Owners company={company.value} />
        </section>
      </Suspense>
      <Info query={CompanyQuery} />
    </main>
  )
}

export function App() {
  return (
    <Routes
      pages={{
        lists: () => <ListsPage />,
        list: (listId) => <ListPage listId={listId} />,
        company: (country, number) => <CompanyPage country={country} number={number} />,
      }}
      frame={(page) => (
        <ErrorBoundary>
          <Suspense fallback={<p>Loading…</p>}>{page}</Suspense>
        </ErrorBoundary>
      )}
    />
  )
}
