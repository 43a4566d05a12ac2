import { z } from 'zod'
import { defineEndpoint } from '../endpoint.js'
import { type CompanyKey, companyIdentifier, companyKey, companyPath } from './common.js'

/** Similar companies: GET /v1/companies/{country}/{number}/lookalikes (unpaged). */

export const lookalike = z.object({
  companyId: companyKey,
  score: z.number(),
})

export const lookalikes = defineEndpoint(
  'GET /v1/companies/{countryCode}/{companyNumber}/lookalikes',
  (p: { company: CompanyKey }) => ({ path: companyPath(p.company, 'lookalikes') }),
  z.object({ identifier: companyIdentifier, data: z.array(lookalike) }),
)
