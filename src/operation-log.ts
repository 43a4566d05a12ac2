import type { ExecutionResult } from 'graphql'
import type { Plugin } from 'graphql-yoga'
import type { Context } from './context.js'
import { operationOf } from './cost.js'
import type { Logger } from './logger.js'
import type { GatewayMetrics } from './metrics.js'
import { requestIdOf } from './request-id.js'

/**
 * One log line per GraphQL request: the operation's name, outcome, duration, upstream calls,
 * cache hits and error codes, with the request's id, so operators see what each query cost and
 * why one was refused; and the same outcome and duration in the metrics. Refusals (406, parse,
 * validation, variables, budget) count like the rest. Never variables, query text or headers.
 */

type Outcome = 'ok' | 'partial' | 'error' | 'refused'

interface Entry {
  started: number
  operation?: string | null
  context?: Context
  codes?: string[]
  outcome?: Outcome
  streamed?: boolean
}

/** As the GraphQL spec reads a response: no `data` at all means execution never started. */
function outcomeOf(result: ExecutionResult): Outcome {
  if (result.data === undefined) return 'refused'
  if (!result.errors?.length) return 'ok'
  return result.data === null ? 'error' : 'partial'
}

export function useOperationLog(
  graphqlEndpoint: string,
  logger: Logger | undefined,
  metrics: GatewayMetrics,
): Plugin<Context> {
  const entries = new WeakMap<Request, Entry>()
  return {
    onRequest({ request, url }) {
      if (url.pathname === graphqlEndpoint) entries.set(request, { started: performance.now() })
    },
    onParams({ request, params }) {
      const entry = entries.get(request)
      if (entry) entry.operation = params.operationName ?? null
    },
    onValidate({ params, context }) {
      const entry = entries.get((context as { request: Request }).request)
      const operation = operationOf(params.documentAST, entry?.operation)
      if (entry && operation?.name) entry.operation = operation.name.value
    },
    onExecute({ args }) {
      const context = args.contextValue as Context & { request: Request }
      const entry = entries.get(context.request)
      if (entry) entry.context = context
    },
    onResultProcess({ request, result }) {
      const entry = entries.get(request)
      if (!entry || Array.isArray(result)) return
      if (Symbol.asyncIterator in result) {
        // @defer/@stream: logged when the first part is sent (its later parts' errors and
        // duration are not known then); `streamed` says so.
        entry.streamed = true
        entry.outcome = 'ok'
        return
      }
      const single = result as ExecutionResult
      entry.codes = (single.errors ?? []).map((e) => String(e.extensions?.code))
      entry.outcome = outcomeOf(single)
    },
    onResponse({ request, response }) {
      const entry = entries.get(request)
      if (!entry) return
      entries.delete(request)
      // No result at all: refused at the HTTP level (406) or served GraphiQL.
      if (entry.outcome === undefined && response.status < 400) return
      const outcome = entry.outcome ?? 'refused'
      const ms = performance.now() - entry.started
      metrics.operation(outcome, ms / 1000)
      logger?.info(
        {
          requestId: requestIdOf(request),
          operation: entry.operation ?? null,
          outcome,
          status: response.status,
          durationMs: Math.round(ms),
          upstreamCalls: entry.context?.operation.upstreamCalls ?? 0,
          cacheHits: entry.context?.operation.cacheHits ?? 0,
          errors: entry.codes?.length ? entry.codes : undefined,
          streamed: entry.streamed,
        },
        'operation',
      )
    },
  }
}
