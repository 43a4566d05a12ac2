import { z } from 'zod'
import { defineEndpoint } from '../endpoint.js'
import { type CompanyKey, companyIdentifier, companyPath, type Page, pagination } from './common.js'

/** Contact persons of a company: GET /v1/companies/{country}/{number}/contacts. */

/** `contactId` can change, rarely: combine it with the names for a stable key. */
export const contactIdentity = z.object({
  contactId: z.int32(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
})

export const companyContact = z.object({
  jobTitle: z.string().nullable(),
  identifier: contactIdentity,
})
export type CompanyContact = z.output<typeof companyContact>

export interface ContactFilters {
  /** Searches first name, last name and job title. */
  q?: string | undefined
  onlyOfficialRoles?: boolean | undefined
  seniorities?: readonly string[] | undefined
  departments?: readonly string[] | undefined
  officialRoles?: readonly string[] | undefined
}

export const companyContacts = defineEndpoint(
  'GET /v1/companies/{countryCode}/{companyNumber}/contacts',
  (p: Page & ContactFilters & { company: CompanyKey }) => ({
    path: companyPath(p.company, 'contacts'),
    query: {
      q: p.q,
      onlyOfficialRoles: p.onlyOfficialRoles,
      seniorities: p.seniorities,
      departments: p.departments,
      officialRoles: p.officialRoles,
      limit: p.limit,
      offset: p.offset,
    },
  }),
  z.object({ identifier: companyIdentifier, data: z.array(companyContact), pagination }),
)
