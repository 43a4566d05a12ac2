import { LRUCache } from 'lru-cache'
import type { List } from '../upstream/resources/lists.js'

/**
 * The type of each list read (a list is STATIC or SMART for good), per token scope, so that
 * `list(listId:)` sends its companies read (whose parameters depend on the type) beside its
 * details read. It holds no data; a read made on a type that turns out wrong is made again.
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

export interface KnownListTypes {
  learn(lists: readonly Pick<List, 'id' | 'type'>[]): void
  typeOf(listId: number): List['type'] | undefined
}
