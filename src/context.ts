import { setMaxListeners } from 'node:events'
import type { IncomingMessage } from 'node:http'
import type { FieldNode } from 'graphql'
import type { YogaInitialContext } from 'graphql-yoga'
import { keyedHash } from './domain/keyed-hash.js'
import { Loaders } from './loaders/index.js'
import { type KnownListTypes, ListTypes } from './loaders/list-types.js'
import { traces } from './observability/operation-trace.js'
import { requestIdOf } from './observability/request-id.js'
import type { UpstreamClient } from './upstream/client.js'
import type { Language, ReadScope } from './upstream/read-scope.js'

/**
 * One operation's share of the upstream: its budget (MAX_OPERATION_COST), deadline
 * (OPERATION_TIMEOUT_MS) and end: `end()` aborts its reads, waiting or in flight.
 */
export interface Operation extends ReadScope {
  /** HTTP requests sent upstream for this operation so far, retries included. */
  readonly upstreamCalls: number
  /** Reads answered from the cache or by another operation's read in flight. */
  readonly cacheHits: number
  /** Reads answered by an expired entry because the upstream failed (stale-if-error). */
  readonly staleReads: number
  readonly limit: number
  /** Who is calling, a short keyed hash (src/http/use-caller-identity.ts): also its fairnessKey. */
  readonly callerId: string
  end(): void
}

/** What admission worked out of the operation before it ran (src/operation/analysis.ts). */
export interface OperationPlan {
  /** Field nodes the first payload holds; the others are sent in a @defer'red part. */
  firstPart: ReadonlySet<FieldNode>
  /** Field nodes at or below which an upstream read is made (beside a company's own statements
   *  read, which its field waits for): src/schema/prefetch.ts starts those reads early. */
  reading: ReadonlySet<FieldNode>
}

/** What every resolver gets: this operation's loaders, budget and keyed hash. */
export interface Context {
  loaders: Loaders
  operation: Operation
  /** Set by admission (src/operation/use-admission.ts) before execution. */
  plan?: OperationPlan
  /** Keyed hash with GATEWAY_SECRET, for IDs that must not reveal what they stand for. */
  keyedHash(parts: readonly string[], length?: number): string
  /** List types learned from earlier reads with the same upstream token. */
  listTypes: KnownListTypes
}

/** The first of nl, fr, en that Accept-Language names (any case, region ignored), if any. */
export function languageOf(acceptLanguage: string | null): Language | undefined {
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]?.trim().toLowerCase().split('-')[0]
    if (tag === 'nl' || tag === 'fr' || tag === 'en') return tag.toUpperCase() as Language
  }
  return undefined
}

/** The bearer token of an Authorization header, if it carries one. */
export function bearerToken(authorization: string | null): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')
  return match?.[1]
}

/**
 * Why an operation's signal aborts, made once (`abort()` makes a DOMException per call). An
 * AbortError: yoga takes only that for a cancellation. Not frozen: loggers mark what they log.
 */
const OPERATION_ENDED = new DOMException('The operation ended.', 'AbortError')

/** Who sent a request, a short keyed hash, asked once its credential is verified. */
export type CallerId = (request: Request, address: string | undefined) => string

export interface ContextSettings {
  maxOperationCost: number
  operationTimeoutMs: number
  gatewaySecret: string
  callerId: CallerId
}

export function contextFactory(
  client: UpstreamClient,
  settings: ContextSettings,
  listTypes = new ListTypes(),
) {
  const hash = (parts: readonly string[], length?: number) =>
    keyedHash(settings.gatewaySecret, parts, length)
  return ({ request, req }: YogaInitialContext & { req?: IncomingMessage }): Context => {
    const token = bearerToken(request.headers.get('authorization'))
    const ended = new AbortController()
    // Every read of the operation listens for its end: hundreds is normal, not a leak.
    setMaxListeners(0, ended.signal)
    // The request's signal aborts when the client goes away (it may not be a native AbortSignal).
    if (request.signal.aborted) ended.abort(OPERATION_ENDED)
    else
      request.signal.addEventListener('abort', () => ended.abort(OPERATION_ENDED), { once: true })
    let used = 0
    let cacheHits = 0
    let staleReads = 0
    const operation: Operation = {
      requestId: requestIdOf(request),
      trace: traces.get(request),
      caller: { token, language: languageOf(request.headers.get('accept-language')) },
      get callerId() {
        return settings.callerId(request, req?.socket.remoteAddress)
      },
      // One share of connections per caller: many operations at once buy no bigger share.
      get fairnessKey() {
        return this.callerId
      },
      signal: ended.signal,
      deadline: Date.now() + settings.operationTimeoutMs,
      limit: settings.maxOperationCost,
      get upstreamCalls() {
        return used
      },
      get cacheHits() {
        return cacheHits
      },
      get staleReads() {
        return staleReads
      },
      fresh: /(^|[\s,])no-cache($|[\s,])/i.test(request.headers.get('cache-control') ?? ''),
      startedAt: Date.now(),
      served(result) {
        if (result !== 'miss') cacheHits++
        if (result === 'stale') staleReads++
      },
      spend() {
        if (used >= settings.maxOperationCost) return false
        used++
        return true
      },
      end: () => ended.abort(OPERATION_ENDED),
    }
    return {
      operation,
      loaders: new Loaders(client, operation),
      keyedHash: hash,
      listTypes: listTypes.of(client.tokenScope(operation.caller)),
    }
  }
}
