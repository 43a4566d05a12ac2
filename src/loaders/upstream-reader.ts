import DataLoader from 'dataloader'
import type { UpstreamClient } from '../upstream/client.js'
import { type Endpoint, type PreparedRequest, prepare } from '../upstream/endpoint.js'
import type { ReadScope } from '../upstream/read-scope.js'

/**
 * A DataLoader batch function over `work` for each key: every key gets its own result or its
 * own Error, so one failed key never fails the other keys of its batch.
 */
export function eachSettled<K, V>(
  keys: readonly K[],
  work: (key: K) => V | Promise<V>,
): Promise<(V | Error)[]> {
  return Promise.all(
    keys.map(async (key) => {
      try {
        return await work(key)
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error))
      }
    }),
  )
}

/** Every upstream read of an operation: identical reads (same path and query) are made once. */
export class UpstreamReader {
  private readonly loader: DataLoader<PreparedRequest, unknown, string>
  /**
   * Each read asked for, by path and query. Kept here, not in DataLoader's cache: DataLoader
   * answers a key it has cached only once the keys first asked for in the same tick have
   * answered (dataloader#222), so a read asked for again (a field's read started early) waited
   * for an unrelated slow one, a deferred part's read included.
   */
  private readonly reads = new Map<string, Promise<unknown>>()

  constructor(client: UpstreamClient, scope: ReadScope) {
    // The REST service has no batch endpoint, so nothing is batched: each read is sent on its
    // own and answers its caller as soon as it arrives. (A batch answers every load when its
    // last read arrives: a traversal's third round then waited for the slowest of the 120
    // reads of its second.)
    this.loader = new DataLoader(
      (requests) => eachSettled(requests, (request) => client.send(request, scope)),
      { batch: false, cache: false },
    )
  }

  read<P, T>(endpoint: Endpoint<P, T>, params: P): Promise<T> {
    const request = prepare(endpoint, params)
    const asked = this.reads.get(request.key)
    if (asked) return asked as Promise<T>
    const read = this.loader.load(request)
    this.reads.set(request.key, read)
    return read as Promise<T>
  }
}
