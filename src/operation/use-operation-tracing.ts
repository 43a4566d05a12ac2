import type { Tracer } from '@opentelemetry/api'
import type { DocumentNode } from 'graphql'
import { isAsyncIterable, type Plugin } from 'graphql-yoga'
import {
  endOperationTrace,
  nameOperationTrace,
  type OperationTrace,
  startOperationTrace,
  traces,
} from '../observability/operation-trace.js'
import { requestIdOf } from '../observability/request-id.js'
import { runOperation } from './operation-name.js'
import { errorCodesOf, observeStream, type ResultPart } from './result-stream.js'
import { isWarmUp } from './warm-up.js'

function record(state: OperationTrace, result: ResultPart) {
  for (const code of errorCodesOf(result)) state.codes.add(code)
  // As the GraphQL spec reads a response: errors and no data at all (refused) or null data.
  if (result.errors?.length && (result.data === undefined || result.data === null)) {
    state.failed = true
  }
}

/** Names the span after the operation the document and params select (`query Traversal`). */
function name(state: OperationTrace, document: DocumentNode, operationName?: string | null) {
  const run = runOperation(document, operationName)
  if (run) nameOperationTrace(state, run.operation.operation, run.shownName)
}

/**
 * The yoga plugin: one SERVER span per GraphQL operation, named `<type> <name>` once its document
 * is parsed (`graphql.operation` until then, and for a document that does not parse), child of
 * the caller's `traceparent` when there is one, else the root of a new trace. Attributes:
 * graphql.operation.name/type, graphql.error.codes (each code once), gateway.request_id,
 * gateway.upstream.calls (upstream spans made in it), gateway.cache.<result> (see
 * recordCacheRead). Status ERROR when the response has errors and no data, or the operation
 * threw. Put it first in the plugin list, so the span covers the other plugins' work and sees
 * their refusals. No tracer (OTEL_SDK_DISABLED): does nothing.
 */
export function useOperationTracing(tracer: Tracer | undefined): Plugin {
  if (!tracer) return {}
  return {
    instrumentation: {
      operation({ request, context: serverContext }, wrapped) {
        if (isWarmUp(serverContext)) return wrapped()
        const state = startOperationTrace(tracer, request.headers, requestIdOf(request))
        traces.set(request, state)
        const done = () => {
          if (!state.streaming) endOperationTrace(state)
        }
        const fail = (error: unknown) => {
          endOperationTrace(state, error)
          throw error
        }
        let running: ReturnType<typeof wrapped>
        try {
          running = wrapped()
        } catch (error) {
          return fail(error)
        }
        if (running === undefined) return done()
        return running.then(done, fail)
      },
    },
    onParse() {
      return ({ result, context: { params, request } }) => {
        const state = traces.get(request)
        if (!state?.span.isRecording() || result === null || result instanceof Error) return
        name(state, result, params?.operationName)
      }
    },
    onExecutionResult({ request, result, setResult }) {
      const state = traces.get(request)
      if (!state || result === undefined) return
      if (isAsyncIterable(result)) {
        state.streaming = true
        setResult(
          observeStream(
            result,
            (part) => record(state, part),
            (error) => endOperationTrace(state, error),
          ),
        )
      } else record(state, result)
    },
  }
}
