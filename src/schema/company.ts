import type { GraphQLResolveInfo } from 'graphql'
import type { Context } from '../context.js'
import { COUNTRIES, normaliseCompanyNumber } from '../domain/company-number.js'
import { badUserInput, notFound } from '../errors/graphql-errors.js'
import type { UpstreamError } from '../upstream/errors.js'
import type { CompanyIdentifier, CompanyKey } from '../upstream/resources/common.js'
import { financials, statementsFrom } from '../upstream/resources/financials.js'
import { argumentChecks, parses } from './argument-checks.js'
import { builder } from './builder.js'
import { startReadsBelow } from './prefetch.js'
import { read } from './reads.js'
import { STATEMENTS, upstreamCost } from './upstream-cost.js'

/** A company by country and number; name and place when the read that led here carried them. */
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
      extensions: upstreamCost({ reads: 1, unlessCarried: true, sharedRead: STATEMENTS }),
      resolve: (company, _args, ctx, info) => identity(company, 'name', ctx, info),
    }),
    place: t.string({
      nullable: true,
      description: 'Place (town or city) of the registered office; null when not reported.',
      extensions: upstreamCost({ reads: 1, unlessCarried: true, sharedRead: STATEMENTS }),
      resolve: (company, _args, ctx, info) => identity(company, 'place', ctx, info),
    }),
  }),
})

/** A company's first statements read: it names the company, and tells whether it exists. */
function statementsRead(company: CompanyKey, ctx: Context, info: GraphQLResolveInfo) {
  return read(ctx, info, financials, statementsFrom(company))
}

/** Name or place: carried by the read that led here, or from the company's statements read; never
 *  from another branch's read, so the answer does not depend on which read landed first. */
async function identity(
  company: CompanyRef,
  field: 'name' | 'place',
  ctx: Context,
  info: GraphQLResolveInfo,
) {
  const carried = company[field]
  if (carried !== undefined) return carried
  return (await statementsRead(company, ctx, info)).identifier[field]
}

/** Normalises a company number a client gave (the number is not echoed back in the error). */
export function companyFromInput(country: CompanyKey['country'], number: string): CompanyKey {
  const check = normaliseCompanyNumber(country, number)
  if (!check.ok) throw badUserInput(`Invalid company number: ${check.reason}.`, 'number')
  return { country, companyNumber: check.number }
}

/** The key inside a Company ID, `<country>:<number>`, in the gateway's own spelling only (a Relay
 *  client must get back the ID it asked for). */
export function companyFromId(key: string): CompanyKey {
  const [country, number, ...rest] = key.split(':')
  const check =
    COUNTRIES.includes(country as CompanyKey['country']) && number !== undefined && !rest.length
      ? normaliseCompanyNumber(country as CompanyKey['country'], number)
      : undefined
  if (!check?.ok || check.number !== number) throw badUserInput('Malformed Company ID.', 'id')
  return { country: country as CompanyKey['country'], companyNumber: number }
}

/**
 * A company asked for by number: null exactly when its statements read answers 404, 401 or 403;
 * its selected fields' reads start beside that read. Any other failure returns the company, and
 * each field that needed the read is null with its error.
 */
export async function companyByNumber(
  company: CompanyKey,
  ctx: Context,
  info: GraphQLResolveInfo,
): Promise<CompanyRef> {
  const statements = statementsRead(company, ctx, info)
  startReadsBelow(company, 'Company', ctx, info, statements)
  try {
    await statements
  } catch (error) {
    const { code } = error as UpstreamError
    if (code === 'NOT_FOUND') {
      throw notFound(`The upstream knows no company ${company.country} ${company.companyNumber}.`)
    }
    if (code === 'UNAUTHENTICATED' || code === 'FORBIDDEN') throw error
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
      'NOT_FOUND, found out by its statements read (the one its name and financials take), made ' +
      'together with the reads of its other fields.',
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
    extensions: {
      ...upstreamCost({ brings: 'unverified' }),
      ...argumentChecks(
        parses('number', (args) =>
          companyFromInput(args.country as CompanyKey['country'], args.number as string),
        ),
      ),
    },
    resolve: (_root, { country, number }, ctx, info) =>
      companyByNumber(companyFromInput(country, number), ctx, info),
  }),
)
