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

/**
 * Financial statements. Amounts are in the upstream's reporting currency and unit, which the
 * REST document does not state; ratios are plain numbers; null means not reported.
 */

const AMOUNT =
  'Amount as reported upstream (currency and unit not stated by the upstream); null when not reported.'
const amount = (what: string) => ({ nullable: true, description: `${what}. ${AMOUNT}` }) as const

const Profitability = builder.objectRef<Financial['profitability']>('Profitability').implement({
  description: 'Profit and loss figures of one bookkeeping period.',
  fields: (t) => ({
    revenue: t.exposeFloat(
      'revenue',
      amount('Turnover (operating revenue); often absent in abbreviated accounts'),
    ),
    grossMargin: t.exposeFloat(
      'grossMargin',
      amount('Gross margin: revenue minus cost of goods sold'),
    ),
    ebitda: t.exposeFloat(
      'ebitda',
      amount('Earnings before interest, taxes, depreciation and amortisation; may be negative'),
    ),
    ebit: t.exposeFloat(
      'ebit',
      amount('Earnings before interest and taxes (operating result); may be negative'),
    ),
    netProfit: t.exposeFloat('netProfit', amount('Profit after taxes; negative for a loss')),
  }),
})

const Liquidity = builder.objectRef<Financial['liquidity']>('Liquidity').implement({
  description: 'Cash and short-term solvency figures of one bookkeeping period.',
  fields: (t) => ({
    cash: t.exposeFloat('cash', amount('Cash and cash equivalents')),
    cashFlow: t.exposeFloat('cashFlow', amount('Cash flow of the period')),
    netWorkingCapital: t.exposeFloat(
      'netWorkingCapital',
      amount('Current assets minus current liabilities'),
    ),
    netWorkingCapitalRequirement: t.exposeFloat(
      'netWorkingCapitalRequirement',
      amount('Working capital requirement: stocks and receivables minus short-term operating debt'),
    ),
    currentRatio: t.exposeFloat('currentRatio', {
      nullable: true,
      description:
        'Current assets divided by current liabilities, a plain ratio (1.5 = 150 %); null when not reported.',
    }),
    quickRatio: t.exposeFloat('quickRatio', {
      nullable: true,
      description:
        'Current assets without stocks divided by current liabilities, a plain ratio; null when not reported.',
    }),
  }),
})

const Solvency = builder.objectRef<Financial['solvency']>('Solvency').implement({
  description: 'Balance sheet structure of one bookkeeping period.',
  fields: (t) => ({
    totalAssets: t.exposeFloat('totalAssets', amount('Balance sheet total')),
    equity: t.exposeFloat('equity', amount('Equity; negative when losses exceed capital')),
    capital: t.exposeFloat('capital', amount('Subscribed capital')),
    retainedEarnings: t.exposeFloat(
      'retainedEarnings',
      amount('Retained earnings (accumulated profits or losses)'),
    ),
    debt: t.exposeFloat('debt', amount('Total debt (long and short term)')),
    longTermDebt: t.exposeFloat('longTermDebt', amount('Debt due after one year')),
    longTermDebtFinancial: t.exposeFloat(
      'longTermDebtFinancial',
      amount('Long-term debt to banks and other lenders'),
    ),
    longTermDebtAccountsPayable: t.exposeFloat(
      'longTermDebtAccountsPayable',
      amount('Long-term trade and other non-financial debt'),
    ),
    shortTermDebt: t.exposeFloat('shortTermDebt', amount('Debt due within one year')),
    shortTermDebtFinancial: t.exposeFloat(
      'shortTermDebtFinancial',
      amount('Short-term debt to banks and other lenders'),
    ),
    shortTermDebtAccountsPayable: t.exposeFloat(
      'shortTermDebtAccountsPayable',
      amount('Short-term trade payables and other non-financial debt'),
    ),
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
    employeeMaleRatio: t.exposeFloat('employeeMaleRatio', {
      nullable: true,
      description:
        'Share of male employees as a fraction between 0 and 1 (0.6 = 60 %); null when not reported.',
    }),
    employeeFemaleRatio: t.exposeFloat('employeeFemaleRatio', {
      nullable: true,
      description:
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

/**
 * Every statement of a company, newest period first. The upstream documents no order, so they are
 * read whole (the first read is the one that names the company too) and sorted here.
 */
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
