import { z } from 'zod'
import { COUNTRIES } from '../../domain/company-number.js'

/** Schemas shared by several resources of the REST document. */

export const country = z.enum(COUNTRIES)

/** `pagination` of every paged collection. Whole numbers GraphQL shows as `Int` are z.int32() in
 *  every resource: a larger one fails its read with a coded error, not its serialization. */
export const pagination = z.object({
  limit: z.int32(),
  offset: z.int32(),
  total: z.int32().nonnegative(),
})

/** A company as the upstream identifies it. The document types name and place as strings; a
 *  missing one (null or left out) is taken as null rather than failing a whole page. */
export const companyIdentifier = z.object({
  country,
  companyNumber: z.string().min(1),
  name: z.string().nullable().default(null),
  place: z.string().nullable().default(null),
})
export type CompanyIdentifier = z.output<typeof companyIdentifier>

/** What identifies a company: country and number (lookalikes carry only this). */
export const companyKey = companyIdentifier.pick({ country: true, companyNumber: true })
export type CompanyKey = z.output<typeof companyKey>

/** The largest `limit` the upstream takes on every paged endpoint. */
export const MAX_LIMIT = 500

/** limit/offset of a paged request; limit is at most MAX_LIMIT. */
export type Page = { limit: number; offset: number }

/** Path of a company resource: /v1/companies/{countryCode}/{companyNumber}/{resource}. */
export function companyPath(company: CompanyKey, resource: string) {
  return ['v1', 'companies', company.country, company.companyNumber, resource] as const
}
