/** An operation both the tests and `npm run bench` send. */

/**
 * The frontend traversal: list → 40 companies → financials + 3 lookalikes { name financials }
 * + shareholders { company { name } }.
 */
export const TRAVERSAL = `query Traversal($listId: Int!, $companies: Int!) {
  list(listId: $listId) {
    name
    companies(first: $companies) {
      edges {
        matchedSince
        node {
          name
          financials(first: 1) { nodes { endDate profitability { revenue } } }
          lookalikes(first: 3) { edges { score node { name financials(first: 1) { nodes { endDate } } } } }
          shareholders { percentage company { name } }
        }
      }
    }
  }
}`
