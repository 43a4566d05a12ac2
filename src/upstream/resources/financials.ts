import { z } from 'zod'
import { defineEndpoint } from '../endpoint.js'
import {
  type CompanyKey,
  companyIdentifier,
  companyPath,
  MAX_LIMIT,
  type Page,
  pagination,
} from './common.js'

/** Financial statements of a company: GET /v1/companies/{country}/{number}/financials. */

/** A monetary amount or ratio: any JSON number, negatives allowed; absent or null when unknown. */
const figure = z.number().nullable().default(null)
const count = z.int32().nullable().default(null)

export const financial = z.object({
  startDate: z.iso.date(),
  endDate: z.iso.date(),
  dateReceived: z.iso.date().nullable().default(null),
  healthIndicator: count,
  jointCommitteeCodes: z.array(z.string()).default([]),
  profitability: z.object({
    revenue: figure,
    grossMargin: figure,
    ebitda: figure,
    ebit: figure,
    netProfit: figure,
  }),
  liquidity: z.object({
    cash: figure,
    cashFlow: figure,
    netWorkingCapital: figure,
    netWorkingCapitalRequirement: figure,
    currentRatio: figure,
    quickRatio: figure,
  }),
  solvency: z.object({
    totalAssets: figure,
    equity: figure,
    capital: figure,
    retainedEarnings: figure,
    debt: figure,
    longTermDebt: figure,
    longTermDebtFinancial: figure,
    longTermDebtAccountsPayable: figure,
    shortTermDebt: figure,
    shortTermDebtFinancial: figure,
    shortTermDebtAccountsPayable: figure,
  }),
  people: z.object({
    employees: count,
    newHires: count,
    employeeMaleRatio: figure,
    employeeFemaleRatio: figure,
  }),
})
export type Financial = z.output<typeof financial>

export const financials = defineEndpoint(
  'GET /v1/companies/{countryCode}/{companyNumber}/financials',
  (p: Page & { company: CompanyKey }) => ({
    path: companyPath(p.company, 'financials'),
    query: { limit: p.limit, offset: p.offset },
  }),
  z.object({ identifier: companyIdentifier, data: z.array(financial), pagination }),
)

/** A company's statements from `offset`, as many as the upstream gives at once: it documents no
 *  order, so the gateway reads them whole and orders them itself. */
export const statementsFrom = (company: CompanyKey, offset = 0) => ({
  company,
  limit: MAX_LIMIT,
  offset,
})
