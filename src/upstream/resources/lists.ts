import { z } from 'zod'
import { defineEndpoint } from '../endpoint.js'
import { UpstreamError } from '../errors.js'
import { type Page, pagination } from './common.js'

/** Lists of the caller: GET /v1/lists and GET /v1/lists/{id}. */

export const listType = z.enum(['STATIC', 'SMART'])
/** `type` query of the overview: OVERVIEW returns both kinds. */
export type ListKind = z.output<typeof listType> | 'OVERVIEW'

export const list = z.object({
  id: z.int32(),
  name: z.string(),
  type: listType,
  columns: z.array(z.string()),
  shared: z.boolean(),
  notifications: z.object({ enabled: z.boolean() }),
  amountOfCompanies: z.int32().nonnegative(),
  newResults: z.int32().nullable(),
  updatedAt: z.iso.datetime({ offset: true }),
  createdAt: z.iso.datetime({ offset: true }),
  createdBy: z.string(),
})
export type List = z.output<typeof list>

export const listOverview = defineEndpoint(
  'GET /v1/lists',
  (p: Page & { kind: ListKind }) => ({
    path: ['v1', 'lists'],
    query: { type: p.kind, limit: p.limit, offset: p.offset },
  }),
  z.object({ data: z.array(list), pagination }),
)

export const listDetails = defineEndpoint(
  'GET /v1/lists/{id}',
  (p: { listId: number }) => ({ path: ['v1', 'lists', p.listId] }),
  // The document wraps the one list in an array; an empty array means there is no such list.
  z.object({ data: z.array(list).max(1) }),
)

/** The one list of a details answer; an empty answer is the upstream's way of saying none. */
export function theList(response: { data: List[] }, listId: number): List {
  const found = response.data[0]
  if (!found) throw new UpstreamError('NOT_FOUND', listDetails.name, `there is no list ${listId}`)
  return found
}
