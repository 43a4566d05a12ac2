import type { IncomingMessage } from 'node:http'
import type { ExecutionResult } from 'graphql'
import { isAsyncIterable, type Plugin } from 'graphql-yoga'
import type { CallerId, Context } from '../context.js'
import type { Logger } from '../observability/logger.js'
import type { GatewayMetrics, OperationOutcome } from '../observability/metrics.js'
import { requestIdOf } from '../observability/request-id.js'
import { runOperation } from './operation-name.js'
import { errorCodesOf, observeStream, type ResultPart } from './result-stream.js'
import { isWarmUp } from './warm-up.js'

/**
 * One log line per GraphQL request, refusals included, and its outcome and duration in the
 * metrics. Never variables, query text or headers; the caller is a keyed hash, never a label.
 */
interface Entry {
  started: number
  address: string | undefined
  operation?: string | null
  context?: Context
  codes?: string[]
  outcome?: OperationOutcome
  streamed?: boolean
}

/**
 * As the GraphQL spec reads a response: no `data` at all means execution never started. A later
 * part of a stream with an error makes a whole answer partial.
 */
function outcomeOf(result: ResultPart, before?: OperationOutcome): OperationOutcome {
  if (before !== undefined)
    return before === 'ok' && errorCodesOf(result).length ? 'partial' : before
  if (result.data === undefined) return 'refused'
  if (!result.errors?.length) return 'ok'
  return result.data === null ? 'error' : 'partial'
}

export function useOperationLog(
  graphqlEndpoint: string,
  logger: Logger | undefined,
  metrics: GatewayMetrics,
  callerId: CallerId,
  /** SUBGRAPH_ROUTER_SECRET: whether a request is the supergraph router's. */
  isRouter?: (request: Request) => boolean,
): Plugin<Context> {
  const entries = new WeakMap<Request, Entry>()
  const report = (request: Request, entry: Entry, status: number) => {
    entries.delete(request)
    const outcome = entry.outcome ?? 'refused'
    const ms = performance.now() - entry.started
    metrics.operation(outcome, ms / 1000)
    logger?.info(
      {
        requestId: requestIdOf(request),
        caller: callerId(request, entry.address),
        operation: entry.operation ?? null,
        outcome,
        status,
        durationMs: Math.round(ms),
        upstreamCalls: entry.context?.operation.upstreamCalls ?? 0,
        cacheHits: entry.context?.operation.cacheHits ?? 0,
        errors: entry.codes?.length ? entry.codes : undefined,
        streamed: entry.streamed,
        router: isRouter?.(request) || undefined,
      },
      'operation',
    )
  }
  return {
    onRequest({ request, url, serverContext }) {
      if (url.pathname !== graphqlEndpoint || isWarmUp(serverContext)) return
      const address = (serverContext as { req?: IncomingMessage }).req?.socket.remoteAddress
      entries.set(request, { started: performance.now(), address })
    },
    onValidate({ params, context }) {
      // The document's name for it, never the caller's `operationName` (free text of any length).
      const entry = entries.get((context as { request: Request }).request)
      const shownName = runOperation(params.documentAST, context.params?.operationName)?.shownName
      if (entry && shownName) entry.operation = shownName
    },
    onExecute({ args }) {
      const context = args.contextValue as Context & { request: Request }
      const entry = entries.get(context.request)
      if (entry) entry.context = context
    },
    onExecutionResult({ request, result, setResult }) {
      const entry = entries.get(request)
      if (!entry || result === undefined || !isAsyncIterable(result)) return
      // @defer/@stream: logged when the last part is sent, with every part's errors.
      entry.streamed = true
      setResult(
        observeStream(
          result,
          (part) => {
            entry.codes = [...(entry.codes ?? []), ...errorCodesOf(part)]
            entry.outcome = outcomeOf(part, entry.outcome)
          },
          (error) => {
            if (error !== undefined) entry.outcome = 'error'
            report(request, entry, 200)
          },
        ),
      )
    },
    onResultProcess({ request, result }) {
      const entry = entries.get(request)
      if (!entry || Array.isArray(result) || isAsyncIterable(result)) return
      const single = result as ExecutionResult
      entry.codes = errorCodesOf(single)
      entry.outcome = outcomeOf(single)
    },
    onResponse({ request, response }) {
      const entry = entries.get(request)
      if (!entry || entry.streamed) return
      // No result at all: refused at the HTTP level (406) or served GraphiQL.
      if (entry.outcome === undefined && response.status < 400) return
      report(request, entry, response.status)
    },
  }
}
