/** GraphiQL's opening tabs: none names a list or company, so they run on any upstream. */

export const GRAPHIQL_TABS: readonly { query: string; variables?: string }[] = [
  {
    query: `# Your first list → its companies → their latest statement, best lookalikes and
# shareholders, in one query. Open the Docs pane for every field.
query Traversal {
  lists(first: 1) {
    totalCount
    nodes {
      listId name type companyCount
      companies(first: 5) {
        pageInfo { hasNextPage endCursor }
        edges {
          matchedSince
          node {
            id name place
            financials(first: 1) {
              nodes { endDate profitability { revenue netProfit } people { employees } }
            }
            lookalikes(first: 3) { edges { score node { name place } } }
            shareholders { name percentage company { name } }
          }
        }
      }
    }
  }
}
`,
  },
  {
    query: `# Paging backwards: the last three of your lists; run it again with pageInfo.startCursor
# as $before for the three before them.
query LastLists($before: String) {
  lists(last: 3, before: $before) {
    totalCount
    pageInfo { hasPreviousPage startCursor }
    edges { cursor node { listId name type } }
  }
}
`,
    variables: '{ "before": null }',
  },
  {
    query: `# Any list, company or contact by its global ID: copy an \`id\` from the Traversal tab.
query Node($id: ID!) {
  node(id: $id) {
    id
    __typename
    ... on Company { name place country number }
    ... on List { listName: name type companyCount }
    ... on Contact { firstName lastName jobTitle }
  }
}
`,
    variables: '{ "id": "" }',
  },
]

/** yoga's GraphiQL options for the gateway: callers verified here need their credential too. */
export function graphiqlOptions(upstreamToken: string | undefined, callersVerified: boolean) {
  const credential = callersVerified
    ? '<your API key or token>'
    : upstreamToken
      ? undefined
      : '<your upstream token>'
  const headers = credential && JSON.stringify({ Authorization: `Bearer ${credential}` }, null, 2)
  return {
    title: 'Company data gateway',
    defaultTabs: GRAPHIQL_TABS.map((tab) => ({ ...tab, headers })),
    ...(headers ? { headers } : {}),
  }
}
