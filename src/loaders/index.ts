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
/** The operation's scope, with what is left of its budget. */
export type OperationScope = ReadScope & { readonly upstreamCalls: number; readonly limit: number }

type OwnScope = ReadScope & { deferred: boolean }

export class Loaders {
  private readonly reads: DataLoader<PreparedRequest, unknown, string>
  /**
   * Each read's scope: the operation's, saying whether only @defer parts want the read; a
   * first-payload field that asks for it later, even once it is sent, makes it not deferred.
   */
  private readonly scopes = new Map<string, OwnScope>()
  /** First-payload reads that failed once and are not settled: each needs a retry's call. */
  private retrying = 0

  constructor(
    client: UpstreamClient,
    private readonly scope: OperationScope,
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
    const load = this.reads.load(request) as Promise<T>
    const own = this.scopes.get(request.key)
    if (!own) this.scopes.set(request.key, this.scopeOf(deferred, load))
    else if (!deferred) own.deferred = false
    return load
  }

  /**
   * A read's scope. A deferred read may not take the calls that first-payload reads waiting for a
   * retry need, so the first payload does not depend on @defer; within the estimate, none waits.
   */
  private scopeOf(deferred: boolean, load: Promise<unknown>): OwnScope {
    const { scope } = this
    const own: OwnScope = Object.create(scope)
    own.deferred = deferred
    own.spend = () =>
      own.deferred && scope.limit - scope.upstreamCalls <= this.retrying ? false : scope.spend()
    let counted = false
    own.retrying = () => {
      if (own.deferred || counted) return
      counted = true
      this.retrying++
      const settled = () => {
        this.retrying--
      }
      load.then(settled, settled)
    }
    return own
  }
}
