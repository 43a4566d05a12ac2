import type { GraphQLObjectType, GraphQLResolveInfo } from 'graphql'
import type { Context } from '../context.js'
import { COUNTRIES, normaliseCompanyNumber } from '../domain/company-number.js'
import { badUserInput, notFound } from '../errors/graphql-errors.js'
import type { UpstreamError } from '../upstream/errors.js'
import type { CompanyIdentifier, CompanyKey } from '../upstream/resources/common.js'
import { builder } from './builder.js'
import { partOf } from './defer-part.js'
import { startSelectedReads } from './prefetch.js'
import { upstreamCost } from './upstream-cost.js'

/**
 * A company, known at least by country and number. Name and place come along when the response
 * that led here carried them; otherwise they are looked up (see CompanyDirectory).
 */
export type CompanyRef = CompanyKey & Partial<Pick<CompanyIdentifier, 'name' | 'place'>>

export const CountryEnum = builder.enumType('Country', {
  description: 'Country a company is registered in.',
  values: Object.fromEntries(
    COUNTRIES.map((code) => [
      code,
      { description: { BE: 'Belgium', NL: 'the Netherlands', FR: 'France' }[code] },
    ]),
  ) as Record<(typeof COUNTRIES)[number], { description: string }>,
})

export const CompanyType = builder.node(builder.objectRef<CompanyRef>('Company'), {
  description:
    'A company registered in Belgium, the Netherlands or France. Fields that need upstream data ' +
    'fail on their own without failing their siblings.',
  id: {
    description:
      'Opaque global ID (Relay, URL-safe), accepted by Query.node and Query.nodes. Stands for the country and number.',
    resolve: (company) => `${company.country}:${company.companyNumber}`,
  },
  fields: (t) => ({
    country: t.field({
      type: CountryEnum,
      description: 'Country of registration.',
      resolve: (company) => company.country,
    }),
    number: t.string({
      description:
        'KBO/enterprise number (BE, 10 digits), KVK number (NL, 8 digits) or SIREN (FR, 9 digits), normalised: digits only, no country prefix.',
      resolve: (company) => company.companyNumber,
    }),
    name: t.string({
      nullable: true,
      description: 'Registered name, as the upstream reports it; null when it reports none.',
      extensions: upstreamCost({ isCompanyName: true }),
      resolve: (company, _args, ctx, info) => identity(company, 'name', ctx, info),
    }),
    place: t.string({
      nullable: true,
      description: 'Place (town or city) of the registered office; null when not reported.',
      extensions: upstreamCost({ isCompanyName: true }),
      resolve: (company, _args, ctx, info) => identity(company, 'place', ctx, info),
    }),
  }),
})

/** Name or place: from what led to the company if it said, else from the company directory. */
async function identity(
  company: CompanyRef,
  field: 'name' | 'place',
  ctx: Context,
  info: GraphQLResolveInfo,
) {
  const known = company[field]
  if (known !== undefined) return known
  return (await ctx.loaders.companies.identify(company, partOf(info)))[field]
}

/** Normalises and checks a company number given by a client; a wrong one is BAD_USER_INPUT. */
export function companyFromInput(
  country: CompanyKey['country'],
  number: string,
  argument = 'number',
): CompanyKey {
  const check = normaliseCompanyNumber(country, number)
  if (!check.ok)
    throw badUserInput(`Invalid company number "${number}": ${check.reason}.`, argument)
  return { country, companyNumber: check.number }
}

/**
 * The key inside a Company ID: `<country>:<number>`, the number exactly as the gateway writes it
 * (a Relay client must get back the ID it asked for, so no other spelling is accepted).
 */
export function companyFromId(key: string): CompanyKey {
  const [country, number, ...rest] = key.split(':')
  if (
    !COUNTRIES.includes(country as CompanyKey['country']) ||
    number === undefined ||
    rest.length
  ) {
    throw badUserInput('Malformed Company ID.', 'id')
  }
  const company = companyFromInput(country as CompanyKey['country'], number, 'id')
  if (company.companyNumber !== number) throw badUserInput('Malformed Company ID.', 'id')
  return company
}

/**
 * A company asked for by number (company(), node()). The reads of the fields sent with it start
 * first, so that one of them is the check: no extra upstream call and no extra round trip. Its
 * deferred fields' reads are not waited for: its part must not wait for a later one (one small
 * read checks it when its own part reads nothing). The company is null when no read of it succeeds
 * and the read of its statements says the upstream does not know it (NOT_FOUND) or refuses the
 * caller (UNAUTHENTICATED, FORBIDDEN): another resource refused says nothing of it. When the
 * check failed for a reason that says nothing of the company (5xx, timeout, 429, a bad body), it
 * is returned with what the caller gave, each field that reads null with its own error, in its
 * own part; with no such field to carry the error, it is null with it.
 */
export async function existingCompany(
  company: CompanyKey,
  ctx: Context,
  info: GraphQLResolveInfo,
): Promise<CompanyRef> {
  const type = info.schema.getType('Company') as GraphQLObjectType
  const fieldsRead = await startSelectedReads(company, type, ctx, info, 'sent with it')
  try {
    await ctx.loaders.companies.verify(company, partOf(info))
  } catch (error) {
    const code = (error as UpstreamError).code
    if (code === 'NOT_FOUND') {
      throw notFound(`The upstream knows no company ${company.country} ${company.companyNumber}.`)
    }
    if (code === 'UNAUTHENTICATED' || code === 'FORBIDDEN') throw error
    // Deferred fields report their own reads' failures, in their parts: the reads they would
    // start once the company resolves start now, to tell whether there is any.
    if (
      fieldsRead === 0 &&
      (await startSelectedReads(company, type, ctx, info, 'every part')) === 0
    )
      throw error
  }
  return company
}

builder.queryField('company', (t) =>
  t.field({
    type: CompanyType,
    nullable: true,
    description:
      'One company by country and company number. The number is normalised (spaces, dots and a ' +
      'country prefix such as "BE" are stripped) and checked before any upstream call: a wrong ' +
      'shape or checksum is BAD_USER_INPUT. A company the upstream does not know is null with ' +
      'NOT_FOUND, found out by the reads its fields need anyway (and one read of its statements ' +
      'when they need none or none of them succeeds).',
    args: {
      country: t.arg({
        type: CountryEnum,
        required: true,
        description: 'Country of registration.',
      }),
      number: t.arg.string({
        required: true,
        description:
          'Company number, e.g. "0922.178.703" or "BE0922178703" (BE), "28292991" (NL), "566 925 608" (FR).',
      }),
    },
    extensions: upstreamCost({ companies: 'unverified' }),
    resolve: (_root, { country, number }, ctx, info) =>
      existingCompany(companyFromInput(country, number), ctx, info),
  }),
)
