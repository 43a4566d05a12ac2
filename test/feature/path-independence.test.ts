import { describe, expect, it } from 'vitest'
import {
  battery,
  company,
  companyFields,
  contactFields,
  financialFields,
  listFields,
  type Page,
  page,
} from '../support/battery.js'
import { bigList, claes, demoData, michiels, smartList } from '../support/fixtures.js'
import { startPathStates } from '../support/path-states.js'

/**
 * The answer to an operation does not depend on how the gateway got it: every operation here is
 * answered on every path of ../support/path-states.ts (cache off; cache on, cold then warm; two
 * replicas through Redis; split by @defer/@stream; sent as a persisted document), which must
 * agree on data, errors and the HTTP status. This file: every root field, and every connection
 * walked forward and backward with the cursors the page before gave. node and nodes, Relay's
 * queries, fragments and errors: ./path-independence-nodes.test.ts; operations made at random:
 * ./path-independence-generated.test.ts.
 */

const paths = await startPathStates()
const { answered, walkBothWays } = battery(paths)

describe(`the same answer on ${paths.title}`, () => {
  describe('root fields, and every connection walked forward and backward', () => {
    it.each([
      ['OVERVIEW', 4],
      ['STATIC', 3],
      ['SMART', 3],
      [null, 5],
    ])('lists(kind: %s), %s at a time', async (kind, count) => {
      const lists = await walkBothWays<{ lists: Page }>({
        operation: (args) => `query Lists($count: Int, $cursor: String, $kind: ListKind) {
          lists(${args}, kind: $kind) { ${page(listFields)} } }`,
        variables: { kind },
        pageOf: (data) => data.lists,
        count,
      })
      const expected = demoData.lists.filter((l) => !kind || kind === 'OVERVIEW' || l.type === kind)
      expect(lists.map((l) => (l as { listId: number }).listId)).toEqual(expected.map((l) => l.id))
    })

    it('list(listId:) of every list in one operation, each with its first companies', async () => {
      const aliased = demoData.lists.map(
        (l) => `l${l.id}: list(listId: ${l.id}) { ${listFields} companies(first: 2) {
          ${page(companyFields, 'matchedSince')} } }`,
      )
      const data = await answered<Record<string, { listId: number }>>(`{ ${aliased.join('\n')} }`)
      expect(Object.values(data).map((l) => l.listId)).toEqual(demoData.lists.map((l) => l.id))
    })

    it.each([claes.companyNumber, 'BE 0922.178.703'])(
      'company(…) with every field, its number written %s',
      async (number) => {
        const data = await answered<{ company: { number: string } }>(
          `query Company($country: Country!, $number: String!) {
          company(country: $country, number: $number) {
            ${companyFields}
            shareholders { name function percentage company { ${companyFields} } }
            participations { name function percentage company { ${companyFields} } }
            financials(first: 2) { ${page(financialFields)} }
            lookalikes(first: 2) { ${page(companyFields, 'score')} }
            contacts(first: 2) { ${page(contactFields)} } } }`,
          { country: 'BE', number },
        )
        expect(data.company.number).toBe(claes.companyNumber)
      },
    )

    const members = (listId: number, view: string | null, count: number) => ({
      operation: (args: string) => `query Members($listId: Int!, $count: Int, $cursor: String,
          $view: SmartListView) {
        list(listId: $listId) { companies(${args}, view: $view) {
          ${page(companyFields, 'matchedSince')} } } }`,
      variables: { listId, view },
      pageOf: (data: { list: { companies: Page } }) => data.list.companies,
      count,
    })
    it.each([
      [1005, null, 5],
      [1006, 'NEW', 50],
      [1006, 'ARCHIVED', 50],
    ])('List.companies of list %s (view %s), %s at a time', async (listId, view, count) => {
      expect(await walkBothWays(members(listId, view, count))).not.toEqual([])
    })
    it.each([
      [bigList.id, null],
      [smartList.id, 'SAVED'],
    ])('List.companies of list %s (view %s), 2 pages of 30 each way', async (listId, view) => {
      await walkBothWays(members(listId, view, 30), 2)
    })

    it.each([
      [1005, 5, undefined],
      [bigList.id, 40, 2],
    ])('List.contacts of list %s, %s at a time', async (listId, count, pages) => {
      await walkBothWays<{ list: { contacts: Page } }>(
        {
          operation: (args) => `query ListContacts($listId: Int!, $count: Int, $cursor: String) {
            list(listId: $listId) { contacts(${args}) { ${page(contactFields)} } } }`,
          variables: { listId },
          pageOf: (data) => data.list.contacts,
          count,
        },
        pages,
      )
    })

    it('Company.financials, 4 at a time', async () => {
      const statements = await walkBothWays<{ company: { financials: Page } }>({
        operation: (args) => `query Financials($country: Country!, $number: String!, $count: Int,
            $cursor: String) {
          company(country: $country, number: $number) {
            financials(${args}) { ${page(financialFields)} } } }`,
        variables: company(claes),
        pageOf: (data) => data.company.financials,
        count: 4,
      })
      expect(statements).toHaveLength(demoData.financialsOf(claes).length)
    })

    it.each([null, 0.8])('Company.lookalikes (minScore %s), 5 at a time', async (minScore) => {
      await walkBothWays<{ company: { lookalikes: Page } }>({
        operation: (args) => `query Lookalikes($country: Country!, $number: String!, $count: Int,
            $cursor: String, $minScore: Float) {
          company(country: $country, number: $number) {
            lookalikes(${args}, minScore: $minScore) { ${page(companyFields, 'score')} } } }`,
        variables: { ...company(michiels), minScore },
        pageOf: (data) => data.company.lookalikes,
        count: 5,
      })
    })

    it.each([
      ['every contact', 6, {}],
      ['filtered', 3, { q: 'a', seniorities: ['C_LEVEL', 'DIRECTOR', 'MANAGER'] }],
      ['official roles only', 3, { onlyOfficialRoles: true }],
    ])('Company.contacts (%s), %s at a time', async (_what, count, filters) => {
      await walkBothWays<{ company: { contacts: Page } }>({
        operation: (args) => `query Contacts($country: Country!, $number: String!, $count: Int,
            $cursor: String, $q: String, $seniorities: [String!], $onlyOfficialRoles: Boolean) {
          company(country: $country, number: $number) {
            contacts(${args}, q: $q, seniorities: $seniorities,
              onlyOfficialRoles: $onlyOfficialRoles) { ${page(contactFields)} } } }`,
        variables: { ...company(michiels), ...filters },
        pageOf: (data) => data.company.contacts,
        count,
      })
    })
  })
})
