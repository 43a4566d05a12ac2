import type { OperationTrace } from '../observability/operation-trace.js'

/** How a read was served; `shared`: by another operation's (or replica's) read in flight. */
export type CacheResult = 'hit' | 'miss' | 'stale' | 'shared'

export type Language = 'NL' | 'FR' | 'EN'

/** Who a read is made for: never shared between callers. */
export interface Caller {
  /** The caller's own bearer token, used when the gateway has no service token. */
  token?: string | undefined
  language?: Language | undefined
}

/** How one GraphQL operation uses the upstream; made per operation by the caller of send(). */
export interface ReadScope {
  caller: Caller
  /** X-Request-Id: sent upstream and on the log lines. */
  requestId?: string | undefined
  trace?: OperationTrace | undefined
  /** Connections and rate turns go round robin between these keys. */
  fairnessKey: string
  /** Aborted when the operation is done or its client left: nothing more is sent for it. */
  signal: AbortSignal
  /** Epoch ms, the operation's own deadline. */
  deadline: number
  /** Draws one request from the operation's budget just before it is sent; false: spent. */
  spend(): boolean
  /** The caller sent `Cache-Control: no-cache`: nothing cached is served to it. */
  fresh: boolean
  startedAt: number
  /** Told how each read through the cache was served (not called without a cache). */
  served(result: CacheResult): void
  /** Only a `@defer`red part wants the read: where a budget is short, deferred reads give way. */
  readonly deferred?: boolean
  /** Told when a failed attempt will be retried (the loaders keep that call for it). */
  retrying?(): void
}

/** One read as the stages of the read path see it. */
export interface Read {
  scope: ReadScope
  /** The keyed hash of the token it is sent with. */
  tokenKey: string
  /** `GET /v1/lists/{id}`, and its template `/v1/lists/{id}`. */
  endpoint: string
  template: string
  /** When the read must be done (epoch ms): infinite until its first request is sent. */
  readDeadline: number
}
