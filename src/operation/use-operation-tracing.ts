import type { Tracer } from '@opentelemetry/api'
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
  if (result.errors?.length && result.data == null) state.failed = true
}

/**
 * One SERVER span per GraphQL operation (src/observability/operation-trace.ts). First in the
 * plugin list, so the span covers the other plugins' work and sees their refusals.
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
        try {
          const running = wrapped()
          return running ? running.then(done, fail) : done()
        } catch (error) {
          return fail(error)
        }
      },
    },
    onParse() {
      return ({ result, context: { params, request } }) => {
        const state = traces.get(request)
        if (!state?.span.isRecording() || result === null || result instanceof Error) return
        const run = runOperation(result, params?.operationName)
        if (run) nameOperationTrace(state, run.operation.operation, run.shownName)
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
