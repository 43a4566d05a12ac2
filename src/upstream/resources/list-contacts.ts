import { z } from 'zod'
import { defineEndpoint } from '../endpoint.js'
import { companyIdentifier, type Page, pagination } from './common.js'
import { companyContact } from './company-contacts.js'

/** Contacts of a list: GET /v1/lists/{id}/contacts. Each carries the company it works for. */

export const listContact = companyContact.extend({ company: companyIdentifier })

export const listContacts = defineEndpoint(
  'GET /v1/lists/{id}/contacts',
  (p: Page & { listId: number }) => ({
    path: ['v1', 'lists', p.listId, 'contacts'],
    query: { limit: p.limit, offset: p.offset },
  }),
  z.object({ data: z.array(listContact), pagination }),
)
