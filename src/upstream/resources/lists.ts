import { LRUCache } from 'lru-cache'
import { z } from 'zod'
import { defineEndpoint } from '../client.js'
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

/**
 * The type of each list the gateway has read (a list is STATIC or SMART for good), per upstream
 * token scope (what one token saw is never used for another's reads). Knowing it,
 * `list(listId:)` can send its companies read (whose parameters depend on the type) beside its
 * details read, one round trip instead of two. It holds no data, only which parameters a read
 * will need; a read made on a type that turns out wrong is made again.
 */
export class ListTypes {
  private readonly known = new LRUCache<string, List['type']>({ max: 10_000 })

  /** What is known for the reads of one token scope (none: nothing is learned or known). */
  of(scope: string | undefined): KnownListTypes {
    if (scope === undefined) return { learn: () => {}, typeOf: () => undefined }
    return {
      learn: (lists) => {
        for (const list of lists) this.known.set(`${scope}:${list.id}`, list.type)
      },
      typeOf: (listId) => this.known.get(`${scope}:${listId}`),
    }
  }
}

/** List types learned from earlier reads with one token. */
export interface KnownListTypes {
  learn(lists: readonly Pick<List, 'id' | 'type'>[]): void
  typeOf(listId: number): List['type'] | undefined
}
