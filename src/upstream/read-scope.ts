import type { OperationTrace } from '../observability/operation-trace.js'

/** How a read was served: from the cache, by the upstream, stale after an upstream failure, or
 *  by another operation's (or replica's) read in flight. */
export type CacheResult = 'hit' | 'miss' | 'stale' | 'shared'

/** Language the upstream answers in, selected per caller. */
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
  /** The GraphQL request's X-Request-Id: sent upstream and on its log lines. */
  requestId?: string | undefined
  /** The operation's trace: each request sent is a span in it, and carries its `traceparent`. */
  trace?: OperationTrace | undefined
  /** Connections are shared round robin between keys: one key's backlog never starves another's. */
  fairnessKey: string
  /** Aborted when the operation's response is complete or its client went away: a queued read is
   *  dropped unsent, a request in flight is aborted, no retry follows. */
  signal: AbortSignal
  /** Epoch ms, the operation's own deadline: a read still waiting for a connection then fails. */
  deadline: number
  /** Draws one HTTP request from the operation's budget just before it is sent (retries too);
   *  false: the budget is spent and the request is not sent. */
  spend(): boolean
  /** The caller sent `Cache-Control: no-cache`: nothing cached is served to it. */
  fresh: boolean
  /** Epoch ms at which the operation started. */
  startedAt: number
  /** Told how each read through the cache was served (not called without a cache). */
  served(result: CacheResult): void
}
