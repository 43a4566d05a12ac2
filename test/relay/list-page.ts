import { graphql } from 'relay-runtime'

/**
 * The operations test/feature/clients.test.ts runs through Relay, written as a Relay app writes
 * them. Only relay-compiler reads this file (test/relay/relay.config.json): it compiles each
 * `graphql` tag into test/gql/relay/, which the test imports. Nothing imports this file: without
 * babel-plugin-relay, a `graphql` tag throws when it runs.
 */

export const listPageQuery = graphql`
  query listPageQuery($listId: Int!, $first: Int!) {
    list(listId: $listId) {
      name
      createdAt
      companies(first: $first) {
        nodes {
          name
          ...listPage_financials @defer
          ...listPage_owners @defer
        }
      }
    }
  }
`

export const financials = graphql`
  fragment listPage_financials on Company {
    financials(first: 2) {
      totalCount
      nodes {
        endDate
      }
    }
  }
`

export const owners = graphql`
  fragment listPage_owners on Company {
    shareholders @catch {
      name
    }
  }
`

export const listsQuery = graphql`
  query listPageListsQuery($first: Int!, $stream: Boolean!) {
    lists(first: $first) {
      nodes @stream(initialCount: 1, if: $stream) {
        listId
        name
      }
    }
  }
`

export const listCompaniesQuery = graphql`
  query listCompaniesQuery($listId: Int!, $count: Int!) {
    list(listId: $listId) {
      ...listCompanies @arguments(count: $count)
    }
  }
`

export const listCompanies = graphql`
  fragment listCompanies on List
  @refetchable(queryName: "listCompaniesPaginationQuery")
  @argumentDefinitions(count: { type: "Int!" }, cursor: { type: "String" }) {
    companies(first: $count, after: $cursor) @connection(key: "listCompanies_companies") {
      edges {
        node {
          name
        }
      }
    }
  }
`
