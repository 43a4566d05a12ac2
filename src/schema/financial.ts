import type { GraphQLResolveInfo } from 'graphql'
import type { Context } from '../context.js'
import type { CompanyKey } from '../upstream/resources/common.js'
import { type Financial, financials } from '../upstream/resources/financials.js'
import { builder } from './builder.js'
import { CompanyType } from './company.js'
import { connectionKey, pageOverOffsets } from './paging.js'
import { readWhole } from './reads.js'
import { readBacked } from './semantic-non-null.js'
import { STATEMENTS, wholeCost } from './upstream-cost.js'

/** Financial statements; amounts in the upstream's currency and unit, which it does not state. */

const AMOUNT =
  'Amount as reported upstream (currency and unit not stated by the upstream); null when not reported.'
type Fields<P> = PothosSchemaTypes.ObjectFieldBuilder<typeof builder.$inferSchemaTypes, P>

/** Nullable Float fields, each exposing the property of its name, described `what + after`. */
function floats<P>(t: Fields<P>, described: Partial<Record<keyof P, string>>, after = '') {
  return Object.fromEntries(
    Object.entries<string>(described as Record<string, string>).map(([name, what]) => [
      name,
      t.exposeFloat(name as never, { nullable: true, description: what + after }),
    ]),
  )
}

const amounts = <P>(t: Fields<P>, described: Partial<Record<keyof P, string>>) =>
  floats(t, described, `. ${AMOUNT}`)

const Profitability = builder.objectRef<Financial['profitability']>('Profitability').implement({
  description: 'Profit and loss figures of one bookkeeping period.',
  fields: (t) =>
    amounts(t, {
      revenue: 'Turnover (operating revenue); often absent in abbreviated accounts',
      grossMargin: 'Gross margin: revenue minus cost of goods sold',
      ebitda: 'Earnings before interest, taxes, depreciation and amortisation; may be negative',
      ebit: 'Earnings before interest and taxes (operating result); may be negative',
      netProfit: 'Profit after taxes; negative for a loss',
    }),
})

const Liquidity = builder.objectRef<Financial['liquidity']>('Liquidity').implement({
  description: 'Cash and short-term solvency figures of one bookkeeping period.',
  fields: (t) => ({
    ...amounts(t, {
      cash: 'Cash and cash equivalents',
      cashFlow: 'Cash flow of the period',
      netWorkingCapital: 'Current assets minus current liabilities',
      netWorkingCapitalRequirement:
        'Working capital requirement: stocks and receivables minus short-term operating debt',
    }),
    ...floats(t, {
      currentRatio:
        'Current assets divided by current liabilities, a plain ratio (1.5 = 150 %); null when not reported.',
      quickRatio:
        'Current assets without stocks divided by current liabilities, a plain ratio; null when not reported.',
    }),
  }),
})

const Solvency = builder.objectRef<Financial['solvency']>('Solvency').implement({
  description: 'Balance sheet structure of one bookkeeping period.',
  fields: (t) =>
    amounts(t, {
      totalAssets: 'Balance sheet total',
      equity: 'Equity; negative when losses exceed capital',
      capital: 'Subscribed capital',
      retainedEarnings: 'Retained earnings (accumulated profits or losses)',
      debt: 'Total debt (long and short term)',
      longTermDebt: 'Debt due after one year',
      longTermDebtFinancial: 'Long-term debt to banks and other lenders',
      longTermDebtAccountsPayable: 'Long-term trade and other non-financial debt',
      shortTermDebt: 'Debt due within one year',
      shortTermDebtFinancial: 'Short-term debt to banks and other lenders',
      shortTermDebtAccountsPayable: 'Short-term trade payables and other non-financial debt',
    }),
})

const People = builder.objectRef<Financial['people']>('People').implement({
  description: 'Workforce of one bookkeeping period.',
  fields: (t) => ({
    employees: t.exposeInt('employees', {
      nullable: true,
      description: 'Number of employees; null when not reported.',
    }),
    newHires: t.exposeInt('newHires', {
      nullable: true,
      description: 'Employees hired during the period; null when not reported.',
    }),
    ...floats(t, {
      employeeMaleRatio:
        'Share of male employees as a fraction between 0 and 1 (0.6 = 60 %); null when not reported.',
      employeeFemaleRatio:
        'Share of female employees as a fraction between 0 and 1; null when not reported.',
    }),
  }),
})

const FinancialType = builder.objectRef<Financial>('Financial').implement({
  description: "One bookkeeping period's statement. Amounts are as the upstream reports them.",
  fields: (t) => ({
    startDate: t.expose('startDate', {
      type: 'Date',
      description: 'First day of the bookkeeping period.',
    }),
    endDate: t.expose('endDate', {
      type: 'Date',
      description: 'Last day of the bookkeeping period.',
    }),
    dateReceived: t.expose('dateReceived', {
      type: 'Date',
      nullable: true,
      description: 'Day the statement was received (filed); null when unknown.',
    }),
    healthIndicator: t.exposeInt('healthIndicator', {
      nullable: true,
      description:
        'Financial health score computed by the upstream; its range is not documented upstream. Null when not computed.',
    }),
    jointCommitteeCodes: t.exposeStringList('jointCommitteeCodes', {
      description:
        'Joint committee (paritair comité / commission paritaire) codes, mostly Belgian; empty when none.',
    }),
    profitability: t.expose('profitability', {
      type: Profitability,
      description: 'Profit and loss figures.',
    }),
    liquidity: t.expose('liquidity', {
      type: Liquidity,
      description: 'Cash and working capital figures.',
    }),
    solvency: t.expose('solvency', { type: Solvency, description: 'Balance sheet figures.' }),
    people: t.expose('people', { type: People, description: 'Workforce figures.' }),
  }),
})

const FinancialOrder = builder.enumType('FinancialOrder', {
  description: 'Order of financial statements, by bookkeeping period.',
  values: {
    PERIOD_END_DESC: {
      description:
        'Newest period first: latest endDate, then latest startDate, then latest dateReceived (the default).',
    },
    PERIOD_END_ASC: { description: 'Oldest period first: exactly the reverse of PERIOD_END_DESC.' },
  },
})

/** ISO dates (YYYY-MM-DD) compare as text; an unknown one comes before every known one. */
function byDate(x: string | null, y: string | null): number {
  const [a, b] = [x ?? '', y ?? '']
  return a < b ? -1 : a > b ? 1 : 0
}

const newestFirst = (a: Financial, b: Financial) =>
  byDate(b.endDate, a.endDate) ||
  byDate(b.startDate, a.startDate) ||
  byDate(b.dateReceived, a.dateReceived)

/** Each answer's statements newest first, sorted once. */
const sorted = new WeakMap<object, Financial[]>()

/** Every statement of a company, newest period first: the upstream documents no order. */
async function statementsOf(company: CompanyKey, ctx: Context, info: GraphQLResolveInfo) {
  const { items } = await readWhole(ctx, info, financials, { company })
  let newest = sorted.get(items)
  if (!newest) {
    newest = items.toSorted(newestFirst)
    sorted.set(items, newest)
  }
  return newest
}

builder.objectField(CompanyType, 'financials', (t) =>
  t.connection(
    {
      ...readBacked,
      type: FinancialType,
      description:
        "Financial statements, newest bookkeeping period first (by endDate), whatever order the upstream keeps; `orderBy` turns it round. The gateway reads the company's statements whole (one upstream call for up to 500, shared by every page and by the company's name) and pages them. Relay paging: first/after forward, last/before backward; at most 500 per page, 20 by default.",
      args: {
        orderBy: t.arg({
          type: FinancialOrder,
          defaultValue: 'PERIOD_END_DESC',
          required: false,
          description: 'PERIOD_END_DESC (newest first, the default) or PERIOD_END_ASC.',
        }),
      },
      extensions: wholeCost({ sharedRead: STATEMENTS }),
      resolve: (company, { orderBy, ...args }, ctx, info) => {
        // An explicit null is the default: the same order, so the same cursors.
        const order = orderBy ?? 'PERIOD_END_DESC'
        return pageOverOffsets(
          connectionKey('financials', company.country, company.companyNumber, order),
          args,
          async (offset, limit) => {
            const items = await statementsOf(company, ctx, info)
            const ordered = order === 'PERIOD_END_DESC' ? items : items.toReversed()
            return { items: ordered.slice(offset, offset + limit), total: items.length }
          },
        )
      },
    },
    { name: 'FinancialConnection', description: 'A page of financial statements.' },
    { name: 'FinancialEdge', description: 'A financial statement and its cursor.' },
  ),
)
