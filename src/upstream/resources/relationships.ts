import { z } from 'zod'
import { defineEndpoint } from '../endpoint.js'
import { type CompanyKey, companyIdentifier, companyPath } from './common.js'

/** Shareholders and participations: GET /v1/companies/{country}/{number}/relationships. */

/** An item may be only `{ identifier: null }`: every other field is optional. */
export const relationship = z.object({
  identifier: companyIdentifier.nullable(),
  function: z.string().nullish(),
  percentage: z.number().nullish(),
  name: z.string().nullish(),
})
export type Relationship = z.output<typeof relationship>

export const relationships = defineEndpoint(
  'GET /v1/companies/{countryCode}/{companyNumber}/relationships',
  (p: { company: CompanyKey }) => ({ path: companyPath(p.company, 'relationships') }),
  z.object({
    identifier: companyIdentifier,
    data: z.object({
      parents: z.array(relationship),
      children: z.array(relationship),
    }),
  }),
)
