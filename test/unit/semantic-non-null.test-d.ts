import type { ResultOf } from '@graphql-typed-document-node/core'
import { expectTypeOf } from 'vitest'
import type * as plain from '../gql/graphql.js'
import type * as strict from '../gql-semantic/graphql.js'

/**
 * What a client team's generated types say of the schema's nullable fields (docs/errors.md): the
 * tests' own operations typed by the client preset as is (test/gql) and for a client that throws
 * on field errors (test/gql-semantic, `nullability.errorHandlingClient`). Type-level only: `tsc`
 * in `npm run check` checks it, and fails when a field's nullability differs from what is written
 * here (a @semanticNonNull dropped from the schema, or added where null has a meaning).
 */
type Typings = typeof plain | typeof strict
type Of<T, K extends string> = T extends Record<K, infer V> ? V : never
/** A root field of an operation's result, and a field of the object a root field returns. */
type Root<D, K extends string> = Of<ResultOf<D>, K>
type Child<D, P extends string, K extends string> = Of<NonNullable<Root<D, P>>, K>
/** `never` when an operation no longer selects the field: 'missing', so that it fails too. */
type Nullability<T> = {
  [K in keyof T]: [T[K]] extends [never] ? 'missing' : null extends T[K] ? 'nullable' : 'non-null'
}

/** The eight fields marked @semanticNonNull, each as a test operation selects it. */
type ReadBacked<G extends Typings> = Nullability<{
  'Query.lists': Root<G['ListsDocument'], 'lists'>
  'List.companies': Child<G['MembersDocument'], 'list', 'companies'>
  'List.contacts': Child<G['ListContactsDocument'], 'list', 'contacts'>
  'Company.financials': Child<G['CompanyFinancialsDocument'], 'company', 'financials'>
  'Company.lookalikes': Child<G['LookalikesDocument'], 'company', 'lookalikes'>
  'Company.contacts': Child<G['ContactsDocument'], 'company', 'contacts'>
  'Company.shareholders': Child<G['RelationshipsDocument'], 'company', 'shareholders'>
  'Company.participations': Child<G['RelationshipsDocument'], 'company', 'participations'>
}>

/** Fields whose null has a meaning of its own: NOT_FOUND and the like, or no value upstream. */
type TrulyNullable<G extends Typings> = Nullability<{
  'Query.company': Root<G['CompanyNameDocument'], 'company'>
  'Query.list': Root<G['OneListDocument'], 'list'>
  'Company.name': Child<G['CompanyNameDocument'], 'company', 'name'>
}>

expectTypeOf<ReadBacked<typeof strict>>().toEqualTypeOf<{
  'Query.lists': 'non-null'
  'List.companies': 'non-null'
  'List.contacts': 'non-null'
  'Company.financials': 'non-null'
  'Company.lookalikes': 'non-null'
  'Company.contacts': 'non-null'
  'Company.shareholders': 'non-null'
  'Company.participations': 'non-null'
}>()

expectTypeOf<ReadBacked<typeof plain>>().toEqualTypeOf<{
  'Query.lists': 'nullable'
  'List.companies': 'nullable'
  'List.contacts': 'nullable'
  'Company.financials': 'nullable'
  'Company.lookalikes': 'nullable'
  'Company.contacts': 'nullable'
  'Company.shareholders': 'nullable'
  'Company.participations': 'nullable'
}>()

type AllNullable = {
  'Query.company': 'nullable'
  'Query.list': 'nullable'
  'Company.name': 'nullable'
}
expectTypeOf<TrulyNullable<typeof strict>>().toEqualTypeOf<AllNullable>()
expectTypeOf<TrulyNullable<typeof plain>>().toEqualTypeOf<AllNullable>()
