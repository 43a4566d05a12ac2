import { z } from 'zod'
import { defineEndpoint } from '../endpoint.js'
import { companyIdentifier, type Page, pagination } from './common.js'

/** Companies of a list: GET /v1/lists/{id}/companies. */

/** Which companies of a SMART list; ALL returns every one. */
export type SmartListView = 'ALL' | 'SAVED' | 'ARCHIVED' | 'NEW'

export const listCompany = z.object({
  identifier: companyIdentifier,
  matchedSince: z.iso.datetime({ offset: true }),
})

export const listCompanies = defineEndpoint(
  'GET /v1/lists/{id}/companies',
  (p: Page & { listId: number; view?: SmartListView | undefined }) => ({
    path: ['v1', 'lists', p.listId, 'companies'],
    query: { type: p.view, limit: p.limit, offset: p.offset },
  }),
  z.object({ data: z.array(listCompany), pagination }),
)
