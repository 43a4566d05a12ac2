import DataLoader from 'dataloader'
import type { UpstreamClient } from '../upstream/client.js'
import { type Endpoint, type PreparedRequest, prepare } from '../upstream/endpoint.js'
import type { ReadScope } from '../upstream/read-scope.js'

/**
 * One operation's upstream reads, made through one DataLoader and dropped with the operation:
 * its cache is the operation's de-duplication (the same path and query is read once, whatever
 * part of the answer asks), so nothing read for one caller is served to another.
 *
 * The REST service has no batch endpoint: the batch function sends each request on its own and
 * returns each key's promise, which DataLoader adopts, so a read answers as soon as it lands,
 * never when its batch's slowest does, and a key found in the cache waits for nothing either
 * (its batch settles at once; dataloader#222).
 */
export class Loaders {
  private readonly reads: DataLoader<PreparedRequest, unknown, string>
  /** Keys some field of the first payload asked for: a read made only for @defer is not. */
  private readonly firstPart = new Set<string>()

  constructor(client: UpstreamClient, scope: ReadScope) {
    this.reads = new DataLoader(
      async (requests) =>
        requests.map((request) => client.send(request, this.scopeOf(scope, request))),
      { cacheKeyFn: (request) => request.key },
    )
  }

  /** The answer of one GET; `deferred`: asked for by a field a @defer part sends. */
  read<P, T>(endpoint: Endpoint<P, T>, params: P, deferred = false): Promise<T> {
    const request = prepare(endpoint, params)
    if (!deferred) this.firstPart.add(request.key)
    return this.reads.load(request) as Promise<T>
  }

  /**
   * The operation's scope, saying whether only @defer parts want the read: where a budget is
   * short the read path refuses those first. A first-payload field may ask for it later.
   */
  private scopeOf(scope: ReadScope, request: PreparedRequest): ReadScope {
    const { firstPart } = this
    return Object.create(scope, {
      deferred: { get: () => !firstPart.has(request.key) },
    }) as ReadScope
  }
}
