import DataLoader from 'dataloader'
import type { UpstreamClient } from '../upstream/client.js'
import { type Endpoint, type PreparedRequest, prepare } from '../upstream/endpoint.js'
import type { ReadScope } from '../upstream/read-scope.js'

/** The operation's scope, with what is left of its budget. */
export type OperationScope = ReadScope & { readonly upstreamCalls: number; readonly limit: number }

type OwnScope = ReadScope & { deferred: boolean }

/**
 * One operation's upstream reads through one DataLoader, dropped with the operation, so nothing
 * read for one caller is served to another. The REST service has no batch endpoint: each request
 * is sent alone and its promise adopted, so a read answers as soon as it lands (dataloader#222).
 */
export class Loaders {
  private readonly reads: DataLoader<PreparedRequest, unknown, string>
  /** Each read's scope; a first-payload field asking for a deferred read makes it not deferred. */
  private readonly scopes = new Map<string, OwnScope>()
  /** First-payload reads that failed once and are not settled: each needs a retry's call. */
  private retrying = 0

  constructor(
    client: UpstreamClient,
    private readonly scope: OperationScope,
  ) {
    this.reads = new DataLoader(
      async (requests) =>
        requests.map((request) =>
          client.send(request, this.scopes.get(request.pathAndQuery) ?? scope),
        ),
      { cacheKeyFn: (request) => request.pathAndQuery },
    )
  }

  /** The answer of one GET; `deferred`: asked for by a field a @defer part sends. */
  read<P, T>(endpoint: Endpoint<P, T>, params: P, deferred = false): Promise<T> {
    const request = prepare(endpoint, params)
    const load = this.reads.load(request) as Promise<T>
    const own = this.scopes.get(request.pathAndQuery)
    if (!own) this.scopes.set(request.pathAndQuery, this.scopeOf(deferred, load))
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
      const settled = () => void this.retrying--
      load.then(settled, settled)
    }
    return own
  }
}
