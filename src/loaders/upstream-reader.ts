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

  constructor(client: UpstreamClient, scope: ReadScope) {
    // The REST service has no batch endpoint, so nothing is batched: each read is sent on its
    // own and answers its caller as soon as it arrives. (A batch answers every load when its
    // last read arrives: a traversal's third round then waited for the slowest of the 120
    // reads of its second.) DataLoader still makes identical reads once.
    this.loader = new DataLoader(
      (requests) => eachSettled(requests, (request) => client.send(request, scope)),
      { cacheKeyFn: (request) => request.key, batch: false },
    )
  }

  /** The reads not answered yet. */
  private readonly pending = new Set<Promise<unknown>>()

  read<P, T>(endpoint: Endpoint<P, T>, params: P): Promise<T> {
    const read = this.loader.load(prepare(endpoint, params)) as Promise<T>
    if (!this.pending.has(read)) {
      this.pending.add(read)
      // Its failure is reported by whoever awaits the read; here it only leaves the set.
      read.then(
        () => this.pending.delete(read),
        () => this.pending.delete(read),
      )
    }
    return read
  }

  /**
   * Resolves once every read now in flight has settled and what was waiting on their answers
   * has run (the next macrotask): what those answers carry is then in hand, however fast they
   * came.
   */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.pending])
    await new Promise((resolve) => setImmediate(resolve))
  }
}
