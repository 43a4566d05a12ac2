/** The operations `npm run bench` sends. */

export { TRAVERSAL } from '../test/support/traversal.js'

/** The statement fields both one-company queries ask. */
const STATEMENT = `startDate endDate dateReceived healthIndicator jointCommitteeCodes
        profitability { revenue grossMargin ebitda ebit netProfit }
        liquidity { cash cashFlow netWorkingCapital netWorkingCapitalRequirement currentRatio quickRatio }
        solvency { totalAssets equity capital retainedEarnings debt longTermDebt shortTermDebt }
        people { employees newHires employeeMaleRatio employeeFemaleRatio }`

/** A company's name and 5 full statements (the in-process fairness scenario). */
export const SMALL = `query CompanyFinancials($country: Country!, $number: String!) {
  company(country: $country, number: $number) {
    name
    financials(first: 5) {
      nodes {
        ${STATEMENT}
      }
    }
  }
}`

/**
 * The headline one-company query: name, place and 5 full financial periods. The gateway answers
 * it with one upstream read, GET /v1/companies/{country}/{number}/financials?limit=500&offset=0
 * (name and place come with the statements' identifier).
 */
export const ONE_COMPANY = `query OneCompany($country: Country!, $number: String!) {
  company(country: $country, number: $number) {
    name
    place
    financials(first: 5) {
      nodes {
        ${STATEMENT}
      }
    }
  }
}`
