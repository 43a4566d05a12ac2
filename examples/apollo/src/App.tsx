import { useQuery } from '@apollo/client/react'
import { errorsAt, gatewayErrors, useLoadMore, useResponseInfo } from '../../../clients/apollo'
import {
  AnswerInfo,
  CompanyRows,
  Errors,
  FinancialsTable,
  ListLinks,
  OwnersList,
  Routes,
} from '../../shared/ui'
import { graphql } from './gql'
import type { Country } from './gql/graphql'

const ListsQuery = graphql(`
  query AppListsQuery {
    lists(first: 10) {
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
`)

function ListsPage() {
  const { data, error } = useQuery(ListsQuery, { fetchPolicy: 'cache-and-network' })
  const info = useResponseInfo(ListsQuery)
  if (!data && !error) return <p>Loading…</p>
  return (
    <main>
      <h1>Lists</h1>
      {data?.lists ? (
        <ListLinks lists={data.lists.edges.map(({ node }) => node)} />
      ) : (
        <Errors errors={gatewayErrors(error)} />
      )}
      <AnswerInfo info={info} />
    </main>
  )
}

const ListQuery = graphql(`
  query AppListQuery($listId: Int!, $first: Int!, $after: String) {
    list(listId: $listId) {
      id
      name
      companies(first: $first, after: $after) {
        totalCount
        edges {
          node {
            id
            country
            number
            name
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`)

function ListPage({ listId }: { listId: number }) {
  const result = useQuery(ListQuery, {
    variables: { listId, first: 10 },
    fetchPolicy: 'cache-and-network',
  })
  const more = useLoadMore(result, (data) => data?.list?.companies)
  const info = useResponseInfo(ListQuery)
  const { data, error } = result
  if (!data && !error) return <p>Loading…</p>
  const list = data?.list
  if (!list) return <Errors errors={gatewayErrors(error)} />
  const { companies } = list
  return (
    <main>
      <h1>{list.name}</h1>
      {companies ? (
        <CompanyRows
          companies={companies.edges.map(({ node }) => node)}
          totalCount={companies.totalCount}
          more={more}
        />
      ) : (
        <Errors errors={errorsAt(gatewayErrors(error), ['list', 'companies'])} />
      )}
      <AnswerInfo info={info} />
    </main>
  )
}

const CompanyQuery = graphql(`
  query AppCompanyQuery($country: Country!, $number: String!) {
    company(country: $country, number: $number) {
      id
      name
      place
      financials(first: 3) {
        edges {
          node {
            endDate
            profitability {
              revenue
            }
          }
        }
      }
      ... @defer(label: "owners") {
        shareholders {
          company {
            id
          }
          name
          percentage
        }
      }
    }
  }
`)

function CompanyPage({ country, number }: { country: string; number: string }) {
  const { data, error, dataState } = useQuery(CompanyQuery, {
    variables: { country: country as Country, number },
    fetchPolicy: 'cache-and-network',
  })
  const info = useResponseInfo(CompanyQuery)
  if (!data && !error) return <p>Loading…</p>
  const company = data?.company
  if (!company) return <Errors errors={gatewayErrors(error)} />
  const errors = gatewayErrors(error)
  const shareholders = 'shareholders' in company ? company.shareholders : undefined
  return (
    <main>
      <h1>{company.name ?? number}</h1>
      <p>{company.place}</p>
      <h2>Financials</h2>
      {company.financials ? (
        <FinancialsTable statements={company.financials.edges.map(({ node }) => node)} />
      ) : (
        <Errors errors={errorsAt(errors, ['company', 'financials'])} />
      )}
      <h2>Shareholders</h2>
      {shareholders === undefined && dataState === 'streaming' ? (
        <p>Loading shareholders…</p>
      ) : shareholders ? (
        <OwnersList owners={shareholders} />
      ) : (
        <Errors errors={errorsAt(errors, ['company', 'shareholders'])} />
      )}
      <AnswerInfo info={info} />
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
    />
  )
}
