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
    "\n  query AppListsQuery {\n    lists(first: 10) {\n      edges {\n        node {\n          id\n          listId\n          name\n          companyCount\n        }\n      }\n    }\n  }\n": typeof types.AppListsQueryDocument,
    "\n  query AppListQuery($listId: Int!, $first: Int!, $after: String) {\n    list(listId: $listId) {\n      id\n      name\n      companies(first: $first, after: $after) {\n        totalCount\n        edges {\n          node {\n            id\n            country\n            number\n            name\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": typeof types.AppListQueryDocument,
    "\n  query AppCompanyQuery($country: Country!, $number: String!) {\n    company(country: $country, number: $number) {\n      id\n      name\n      place\n      financials(first: 3) {\n        edges {\n          node {\n            endDate\n            profitability {\n              revenue\n            }\n          }\n        }\n      }\n      ... @defer(label: \"owners\") {\n        shareholders {\n          company {\n            id\n          }\n          name\n          percentage\n        }\n      }\n    }\n  }\n": typeof types.AppCompanyQueryDocument,
};
const documents: Documents = {
    "\n  query AppListsQuery {\n    lists(first: 10) {\n      edges {\n        node {\n          id\n          listId\n          name\n          companyCount\n        }\n      }\n    }\n  }\n": types.AppListsQueryDocument,
    "\n  query AppListQuery($listId: Int!, $first: Int!, $after: String) {\n    list(listId: $listId) {\n      id\n      name\n      companies(first: $first, after: $after) {\n        totalCount\n        edges {\n          node {\n            id\n            country\n            number\n            name\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": types.AppListQueryDocument,
    "\n  query AppCompanyQuery($country: Country!, $number: String!) {\n    company(country: $country, number: $number) {\n      id\n      name\n      place\n      financials(first: 3) {\n        edges {\n          node {\n            endDate\n            profitability {\n              revenue\n            }\n          }\n        }\n      }\n      ... @defer(label: \"owners\") {\n        shareholders {\n          company {\n            id\n          }\n          name\n          percentage\n        }\n      }\n    }\n  }\n": types.AppCompanyQueryDocument,
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
export function graphql(source: "\n  query AppListsQuery {\n    lists(first: 10) {\n      edges {\n        node {\n          id\n          listId\n          name\n          companyCount\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query AppListsQuery {\n    lists(first: 10) {\n      edges {\n        node {\n          id\n          listId\n          name\n          companyCount\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AppListQuery($listId: Int!, $first: Int!, $after: String) {\n    list(listId: $listId) {\n      id\n      name\n      companies(first: $first, after: $after) {\n        totalCount\n        edges {\n          node {\n            id\n            country\n            number\n            name\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query AppListQuery($listId: Int!, $first: Int!, $after: String) {\n    list(listId: $listId) {\n      id\n      name\n      companies(first: $first, after: $after) {\n        totalCount\n        edges {\n          node {\n            id\n            country\n            number\n            name\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AppCompanyQuery($country: Country!, $number: String!) {\n    company(country: $country, number: $number) {\n      id\n      name\n      place\n      financials(first: 3) {\n        edges {\n          node {\n            endDate\n            profitability {\n              revenue\n            }\n          }\n        }\n      }\n      ... @defer(label: \"owners\") {\n        shareholders {\n          company {\n            id\n          }\n          name\n          percentage\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query AppCompanyQuery($country: Country!, $number: String!) {\n    company(country: $country, number: $number) {\n      id\n      name\n      place\n      financials(first: 3) {\n        edges {\n          node {\n            endDate\n            profitability {\n              revenue\n            }\n          }\n        }\n      }\n      ... @defer(label: \"owners\") {\n        shareholders {\n          company {\n            id\n          }\n          name\n          percentage\n        }\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;