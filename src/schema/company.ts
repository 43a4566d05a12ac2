import { builder } from '../builder.js'
import { COUNTRIES, normaliseCompanyNumber } from '../company-number.js'
import type { Context } from '../context.js'
import { badUserInput } from '../errors.js'
import type { CompanyIdentifier, CompanyKey } from '../upstream/common.js'

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
    'fail on their own (e.g. NOT_FOUND for an unknown company) without failing their siblings.',
  id: {
    description: 'Opaque global ID (Relay), accepted by Query.node.',
    resolve: (company) => `${company.country}:${company.companyNumber}`,
  },
  // A company ID names the company fully: resolving it needs no upstream call.
  loadOne: (id) => parseCompanyId(id),
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
      description: 'Registered name, as the upstream reports it.',
      resolve: (company, _args, ctx) => identity(company, 'name', ctx),
    }),
    place: t.string({
      nullable: true,
      description: 'Place (town or city) of the registered office.',
      resolve: (company, _args, ctx) => identity(company, 'place', ctx),
    }),
  }),
})

/** Name or place: from what led to the company if it said, else from the company directory. */
async function identity(company: CompanyRef, field: 'name' | 'place', ctx: Context) {
  const known = company[field]
  return known !== undefined ? known : (await ctx.loaders.companies.identify(company))[field]
}

/** Normalises and checks a company number; a wrong one is refused before any upstream call. */
export function companyKey(
  country: CompanyKey['country'],
  number: string,
  argument = 'number',
): CompanyKey {
  const check = normaliseCompanyNumber(country, number)
  if (!check.ok)
    throw badUserInput(`Invalid company number "${number}": ${check.reason}.`, argument)
  return { country, companyNumber: check.number }
}

function parseCompanyId(id: string): CompanyKey {
  const [country, number, ...rest] = id.split(':')
  if (
    !COUNTRIES.includes(country as CompanyKey['country']) ||
    number === undefined ||
    rest.length > 0
  ) {
    throw badUserInput('Malformed Company ID.', 'id')
  }
  return companyKey(country as CompanyKey['country'], number, 'id')
}

builder.queryField('company', (t) =>
  t.field({
    type: CompanyType,
    nullable: true,
    description:
      'One company by country and company number. The number is normalised (spaces, dots and a ' +
      'country prefix such as "BE" are stripped) and checked before any upstream call: a wrong ' +
      'shape or checksum is BAD_USER_INPUT. No upstream call is made until a field needs data.',
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
    resolve: (_root, { country, number }) => companyKey(country, number),
  }),
)
