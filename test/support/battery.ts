import { expect } from 'vitest'
import type { DemoCompany } from '../../src/demo-upstream/data.js'
import { describeOperation, type Operation, type PathStates } from './path-states.js'

/**
 * The hand-written path-independence battery's ways of asking (every operation answered on every
 * path of ./path-states.ts), and the fields it asks for. Each answer is also checked for what it
 * must hold, so that an operation every path gets wrong in the same way (a typo, a refusal)
 * cannot pass unseen.
 */

export interface Page<N = unknown> {
  edges: { cursor: string; node: N }[]
  pageInfo: {
    hasNextPage: boolean
    hasPreviousPage: boolean
    startCursor: string | null
    endCursor: string | null
  }
  /** Absent where the operation does not ask for it (Relay's pagination fragments). */
  totalCount?: number
}

/** A connection to walk, page by page. */
export interface Walk<T> {
  /**
   * The operation, given where the paging arguments go: `first: $count, after: $cursor` (or
   * last/before); with `relay`, always RELAY_ARGS, the unused ones sent as null, as Relay's
   * bidirectional pagination queries do.
   */
  operation: (args: string) => string
  variables?: Operation['variables']
  pageOf: (data: T) => Page
  count: number
  relay?: boolean
}

export const RELAY_ARGS = 'first: $first, after: $after, last: $last, before: $before'

export const listFields =
  'id listId name type columns shared notificationsEnabled companyCount newResults createdAt updatedAt createdBy'
export const companyFields = 'id country number name place'
export const contactFields = `id contactId firstName lastName jobTitle company { ${companyFields} }`
export const financialFields = `startDate endDate dateReceived healthIndicator jointCommitteeCodes
  liquidity { cash cashFlow currentRatio netWorkingCapital netWorkingCapitalRequirement quickRatio }
  people { employees employeeFemaleRatio employeeMaleRatio newHires }
  profitability { revenue grossMargin ebit ebitda netProfit }
  solvency { capital debt equity longTermDebt longTermDebtAccountsPayable longTermDebtFinancial
    retainedEarnings shortTermDebt shortTermDebtAccountsPayable shortTermDebtFinancial totalAssets }`
/** A page's edges with cursors (and `edge`'s fields), its page info and its total. */
export const page = (node: string, edge = '') =>
  `edges { cursor ${edge} node { ${node} } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount`
/** A company as the variables of `company(country: $country, number: $number)`. */
export const company = (c: DemoCompany) => ({ country: c.country, number: c.companyNumber })

/** Errors as the tests name them: code and path, in the order of their paths. */
export const byPath = (errors: { code: unknown; path?: unknown }[]) =>
  errors
    .map(({ code, path }) => ({ code, path }))
    .sort((a, b) => (JSON.stringify([a.path, a.code]) < JSON.stringify([b.path, b.code]) ? -1 : 1))

/** The paging arguments of a walk and the variables they take. */
function paging(forward: boolean, { count, relay }: Walk<unknown>, cursor: string | null) {
  if (relay) {
    const [first, after, last, before] = forward
      ? [count, cursor, null, null]
      : [null, null, count, cursor]
    return { args: RELAY_ARGS, variables: { first, after, last, before } }
  }
  const args = forward ? 'first: $count, after: $cursor' : 'last: $count, before: $cursor'
  return { args, variables: { count, cursor } }
}

export function battery(paths: PathStates) {
  /** The data of an operation that holds no error (on any path: they agree). */
  async function answered<T>(query: string, variables?: Operation['variables']): Promise<T> {
    const operation = { query, variables }
    const { errors, data } = await paths.answer(operation)
    expect(errors, describeOperation(operation)).toEqual([])
    return data as T
  }

  /** The data of an operation and its errors, by path. */
  async function failed<T>(query: string, variables?: Operation['variables']) {
    const { errors, data } = await paths.answer({ query, variables })
    return { data: data as T, errors: byPath(errors) }
  }

  /**
   * Walks a connection page by page, each asked with the cursor the page before gave: forward
   * as first/after or backward as last/before, from `cursor` (the end when null), until there is
   * no page more or `pages` have been read. Returns the items in the collection's order and the
   * cursor where the walk stopped.
   */
  async function walk<T>(
    walked: Walk<T>,
    direction: 'forward' | 'backward',
    { cursor = null as string | null, pages = Number.POSITIVE_INFINITY } = {},
  ) {
    const forward = direction === 'forward'
    const items: unknown[] = []
    for (let read = 1; ; read++) {
      const { args, variables } = paging(forward, walked as Walk<unknown>, cursor)
      const data = await answered<T>(walked.operation(args), { ...walked.variables, ...variables })
      const page = walked.pageOf(data)
      const nodes = page.edges.map((edge) => edge.node)
      expect(nodes.length).toBeLessThanOrEqual(walked.count)
      if (forward) items.push(...nodes)
      else items.unshift(...nodes)
      cursor = forward ? page.pageInfo.endCursor : page.pageInfo.startCursor
      const more = forward ? page.pageInfo.hasNextPage : page.pageInfo.hasPreviousPage
      if (!more && read < pages && page.totalCount !== undefined) {
        expect(items).toHaveLength(page.totalCount)
      }
      if (!more || read === pages) return { items, cursor }
      expect(cursor).not.toBeNull()
    }
  }

  /**
   * A connection walked forward and then backward: the same items. The whole collection, or
   * (a long one) `pages` forward from its start and back from the last item read (all but it).
   */
  async function walkBothWays<T>(walked: Walk<T>, pages?: number): Promise<unknown[]> {
    if (pages === undefined) {
      const { items } = await walk(walked, 'forward')
      expect((await walk(walked, 'backward')).items).toEqual(items)
      return items
    }
    const { items, cursor } = await walk(walked, 'forward', { pages })
    expect(items).toHaveLength(pages * walked.count)
    expect((await walk(walked, 'backward', { cursor, pages })).items).toEqual(items.slice(0, -1))
    return items
  }

  return { answered, failed, walk, walkBothWays }
}
