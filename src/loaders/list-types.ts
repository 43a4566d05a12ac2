import { LRUCache } from 'lru-cache'
import type { List } from '../upstream/resources/lists.js'

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
