import { useQuery } from '@apollo/client/react'
import { errorsAt, gatewayErrors, useLoadMore, useResponseInfo } from '../../../clients/apollo'
import { AnswerInfo, Errors, useRoute } from '../../shared/ui'
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
        <ul>
          {data.lists.edges.map(({ node }) => (
            <li key={node.id}>
              <a href={`#/list/${node.listId}`}>{node.name}</a> ({node.companyCount})
            </li>
          ))}
        </ul>
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
        <section>
          <p>
            {companies.edges.length} of {companies.totalCount} companies
          </p>
          <ol>
            {companies.edges.map(({ node }) => (
              <li key={node.id}>
                <a href={`#/company/${node.country}/${node.number}`}>{node.name ?? node.number}</a>
              </li>
            ))}
          </ol>
          {more.errors && <Errors errors={more.errors} />}
          {more.hasMore && (
            <button type="button" onClick={more.loadMore} disabled={more.loading}>
              {more.errors ? 'Retry' : 'Load more'}
            </button>
          )}
        </section>
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
        <table>
          <tbody>
            {company.financials.edges.map(({ node }) => (
              <tr key={node.endDate}>
                <td>{node.endDate}</td>
                <td>{node.profitability.revenue ?? '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <Errors errors={errorsAt(errors, ['company', 'financials'])} />
      )}
      <h2>Shareholders</h2>
      {shareholders === undefined && dataState === 'streaming' ? (
        <p>Loading shareholders…</p>
      ) : shareholders ? (
        <ul className="owners">
          {shareholders.map((owner) => (
            <li key={owner.company?.id ?? `${owner.name}:${owner.percentage}`}>
              {owner.name ?? 'unnamed'} {owner.percentage != null && `${owner.percentage * 100} %`}
            </li>
          ))}
        </ul>
      ) : (
        <Errors errors={errorsAt(errors, ['company', 'shareholders'])} />
      )}
      <AnswerInfo info={info} />
    </main>
  )
}

function Page({ route }: { route: string[] }) {
  const [page, a, b] = route
  if (page === 'list') return <ListPage listId={Number(a)} />
  if (page === 'company' && a && b) return <CompanyPage country={a} number={b} />
  return <ListsPage />
}

export function App() {
  const route = useRoute()
  return (
    <>
      <nav>
        <a href="#/">All lists</a>
      </nav>
      <Page key={route.join('/')} route={route} />
    </>
  )
}
