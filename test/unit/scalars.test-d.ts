import { expectTypeOf } from 'vitest'
import type { CompanyFinancialsQuery, OneListQuery } from '../gql/graphql.js'
import type { listPage_financials$data } from '../gql/relay/listPage_financials.graphql.js'
import type { listPageQuery$data } from '../gql/relay/listPageQuery.graphql.js'

/**
 * The custom scalars come out as `string` in the repository's generated types, by GraphQL Code
 * Generator (codegen.ts `scalars`) and relay-compiler (test/relay/relay.config.json
 * `customScalarTypes`), as docs/clients.md says: unmapped, both would be `any`, which
 * `toEqualTypeOf<string>` refuses. Type-level only: `tsc` in `npm run check` checks it.
 */
type Statement = NonNullable<
  NonNullable<CompanyFinancialsQuery['company']>['financials']
>['edges'][number]['node']

// DateTime
expectTypeOf<NonNullable<OneListQuery['list']>['createdAt']>().toEqualTypeOf<string>()
expectTypeOf<NonNullable<listPageQuery$data['list']>['createdAt']>().toEqualTypeOf<string>()
// Date
expectTypeOf<Statement['endDate']>().toEqualTypeOf<string>()
expectTypeOf<
  NonNullable<listPage_financials$data['financials']>['nodes'][number]['endDate']
>().toEqualTypeOf<string>()
