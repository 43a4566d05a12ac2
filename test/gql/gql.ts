/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query CompanyFinancials($country: Country!, $number: String!, $first: Int, $after: String, $last: Int, $before: String) {\n    company(country: $country, number: $number) {\n      id\n      country\n      number\n      name\n      place\n      financials(first: $first, after: $after, last: $last, before: $before) {\n        totalCount\n        edges {\n          cursor\n          node {\n            startDate\n            endDate\n            dateReceived\n            healthIndicator\n            jointCommitteeCodes\n            profitability { revenue grossMargin ebitda ebit netProfit }\n            liquidity { cash cashFlow netWorkingCapital netWorkingCapitalRequirement currentRatio quickRatio }\n            solvency {\n              totalAssets equity capital retainedEarnings debt longTermDebt longTermDebtFinancial\n              longTermDebtAccountsPayable shortTermDebt shortTermDebtFinancial shortTermDebtAccountsPayable\n            }\n            people { employees newHires employeeMaleRatio employeeFemaleRatio }\n          }\n        }\n        nodes { endDate }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n": typeof types.CompanyFinancialsDocument,
    "\n  query CompanyName($country: Country!, $number: String!) {\n    company(country: $country, number: $number) { number name place }\n  }\n": typeof types.CompanyNameDocument,
    "\n      query NameAndTwoPages($country: Country!, $number: String!) {\n        company(country: $country, number: $number) {\n          number\n          recent: financials(first: 1) { totalCount }\n        }\n        other: company(country: NL, number: \"00000001\") { number name }\n      }\n    ": typeof types.NameAndTwoPagesDocument,
    "\n  query Traversal($listId: Int!, $companies: Int!) {\n    list(listId: $listId) {\n      name\n      companies(first: $companies) {\n        totalCount\n        edges {\n          matchedSince\n          node {\n            name\n            financials(first: 1) { nodes { endDate profitability { revenue } } }\n            lookalikes(first: 3) {\n              edges { score node { name financials(first: 1) { nodes { endDate } } } }\n            }\n            shareholders { percentage company { name } }\n          }\n        }\n      }\n    }\n  }\n": typeof types.TraversalDocument,
};
const documents: Documents = {
    "\n  query CompanyFinancials($country: Country!, $number: String!, $first: Int, $after: String, $last: Int, $before: String) {\n    company(country: $country, number: $number) {\n      id\n      country\n      number\n      name\n      place\n      financials(first: $first, after: $after, last: $last, before: $before) {\n        totalCount\n        edges {\n          cursor\n          node {\n            startDate\n            endDate\n            dateReceived\n            healthIndicator\n            jointCommitteeCodes\n            profitability { revenue grossMargin ebitda ebit netProfit }\n            liquidity { cash cashFlow netWorkingCapital netWorkingCapitalRequirement currentRatio quickRatio }\n            solvency {\n              totalAssets equity capital retainedEarnings debt longTermDebt longTermDebtFinancial\n              longTermDebtAccountsPayable shortTermDebt shortTermDebtFinancial shortTermDebtAccountsPayable\n            }\n            people { employees newHires employeeMaleRatio employeeFemaleRatio }\n          }\n        }\n        nodes { endDate }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n": types.CompanyFinancialsDocument,
    "\n  query CompanyName($country: Country!, $number: String!) {\n    company(country: $country, number: $number) { number name place }\n  }\n": types.CompanyNameDocument,
    "\n      query NameAndTwoPages($country: Country!, $number: String!) {\n        company(country: $country, number: $number) {\n          number\n          recent: financials(first: 1) { totalCount }\n        }\n        other: company(country: NL, number: \"00000001\") { number name }\n      }\n    ": types.NameAndTwoPagesDocument,
    "\n  query Traversal($listId: Int!, $companies: Int!) {\n    list(listId: $listId) {\n      name\n      companies(first: $companies) {\n        totalCount\n        edges {\n          matchedSince\n          node {\n            name\n            financials(first: 1) { nodes { endDate profitability { revenue } } }\n            lookalikes(first: 3) {\n              edges { score node { name financials(first: 1) { nodes { endDate } } } }\n            }\n            shareholders { percentage company { name } }\n          }\n        }\n      }\n    }\n  }\n": types.TraversalDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CompanyFinancials($country: Country!, $number: String!, $first: Int, $after: String, $last: Int, $before: String) {\n    company(country: $country, number: $number) {\n      id\n      country\n      number\n      name\n      place\n      financials(first: $first, after: $after, last: $last, before: $before) {\n        totalCount\n        edges {\n          cursor\n          node {\n            startDate\n            endDate\n            dateReceived\n            healthIndicator\n            jointCommitteeCodes\n            profitability { revenue grossMargin ebitda ebit netProfit }\n            liquidity { cash cashFlow netWorkingCapital netWorkingCapitalRequirement currentRatio quickRatio }\n            solvency {\n              totalAssets equity capital retainedEarnings debt longTermDebt longTermDebtFinancial\n              longTermDebtAccountsPayable shortTermDebt shortTermDebtFinancial shortTermDebtAccountsPayable\n            }\n            people { employees newHires employeeMaleRatio employeeFemaleRatio }\n          }\n        }\n        nodes { endDate }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n"): (typeof documents)["\n  query CompanyFinancials($country: Country!, $number: String!, $first: Int, $after: String, $last: Int, $before: String) {\n    company(country: $country, number: $number) {\n      id\n      country\n      number\n      name\n      place\n      financials(first: $first, after: $after, last: $last, before: $before) {\n        totalCount\n        edges {\n          cursor\n          node {\n            startDate\n            endDate\n            dateReceived\n            healthIndicator\n            jointCommitteeCodes\n            profitability { revenue grossMargin ebitda ebit netProfit }\n            liquidity { cash cashFlow netWorkingCapital netWorkingCapitalRequirement currentRatio quickRatio }\n            solvency {\n              totalAssets equity capital retainedEarnings debt longTermDebt longTermDebtFinancial\n              longTermDebtAccountsPayable shortTermDebt shortTermDebtFinancial shortTermDebtAccountsPayable\n            }\n            people { employees newHires employeeMaleRatio employeeFemaleRatio }\n          }\n        }\n        nodes { endDate }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CompanyName($country: Country!, $number: String!) {\n    company(country: $country, number: $number) { number name place }\n  }\n"): (typeof documents)["\n  query CompanyName($country: Country!, $number: String!) {\n    company(country: $country, number: $number) { number name place }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n      query NameAndTwoPages($country: Country!, $number: String!) {\n        company(country: $country, number: $number) {\n          number\n          recent: financials(first: 1) { totalCount }\n        }\n        other: company(country: NL, number: \"00000001\") { number name }\n      }\n    "): (typeof documents)["\n      query NameAndTwoPages($country: Country!, $number: String!) {\n        company(country: $country, number: $number) {\n          number\n          recent: financials(first: 1) { totalCount }\n        }\n        other: company(country: NL, number: \"00000001\") { number name }\n      }\n    "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Traversal($listId: Int!, $companies: Int!) {\n    list(listId: $listId) {\n      name\n      companies(first: $companies) {\n        totalCount\n        edges {\n          matchedSince\n          node {\n            name\n            financials(first: 1) { nodes { endDate profitability { revenue } } }\n            lookalikes(first: 3) {\n              edges { score node { name financials(first: 1) { nodes { endDate } } } }\n            }\n            shareholders { percentage company { name } }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Traversal($listId: Int!, $companies: Int!) {\n    list(listId: $listId) {\n      name\n      companies(first: $companies) {\n        totalCount\n        edges {\n          matchedSince\n          node {\n            name\n            financials(first: 1) { nodes { endDate profitability { revenue } } }\n            lookalikes(first: 3) {\n              edges { score node { name financials(first: 1) { nodes { endDate } } } }\n            }\n            shareholders { percentage company { name } }\n          }\n        }\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;