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
  /**
   * Each read's scope: the operation's, saying whether only @defer parts want the read (where a
   * budget is short the read path refuses those first); a first-payload field that asks for it
   * later, even once it is sent, makes it not deferred.
   */
  private readonly scopes = new Map<string, ReadScope & { deferred: boolean }>()

  constructor(
    client: UpstreamClient,
    private readonly scope: ReadScope,
  ) {
    this.reads = new DataLoader(
      async (requests) =>
        requests.map((request) => client.send(request, this.scopes.get(request.key) ?? scope)),
      { cacheKeyFn: (request) => request.key },
    )
  }

  /** The answer of one GET; `deferred`: asked for by a field a @defer part sends. */
  read<P, T>(endpoint: Endpoint<P, T>, params: P, deferred = false): Promise<T> {
    const request = prepare(endpoint, params)
    const own = this.scopes.get(request.key)
    if (own) own.deferred &&= deferred
    else this.scopes.set(request.key, Object.assign(Object.create(this.scope), { deferred }))
    return this.reads.load(request) as Promise<T>
  }
}
