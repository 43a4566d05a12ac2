import { getOperationAST } from 'graphql'
import type { Plugin, YogaLogger } from 'graphql-yoga'
import { type DestinationStream, pino } from 'pino'
import type { Context } from './context.js'

/** JSON-lines logger (pino). Authorization headers and tokens are redacted wherever they appear. */
export function createLogger(level: string, destination?: DestinationStream) {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['authorization', 'token', '*.authorization', '*.token', 'headers.authorization'],
        censor: '[redacted]',
      },
    },
    destination,
  )
}

export type Logger = ReturnType<typeof createLogger>

/** yoga's own messages through pino: an Error as `err`, anything else as the message. */
export function yogaLogger(logger: Logger): YogaLogger {
  const forward =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (first: unknown, ...rest: unknown[]) =>
      first instanceof Error
        ? logger[level]({ err: first }, first.message)
        : logger[level]({ details: rest.length > 0 ? rest.map(String) : undefined }, String(first))
  return {
    debug: forward('debug'),
    info: forward('info'),
    warn: forward('warn'),
    error: forward('error'),
  }
}

/**
 * One line per operation: its name, duration, upstream calls and error codes, so operators see
 * what each query cost. Never the query text's variables, never a header.
 */
export function useOperationLog(logger: Logger): Plugin<Context> {
  return {
    onExecute({ args }) {
      const started = performance.now()
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result) return
          const codes = (result.errors ?? []).map((e) => String(e.extensions?.code ?? 'UNKNOWN'))
          logger.info(
            {
              operation: getOperationAST(args.document, args.operationName)?.name?.value ?? null,
              durationMs: Math.round(performance.now() - started),
              upstreamCalls: (args.contextValue as Context).stats.upstreamCalls,
              errors: codes.length > 0 ? codes : undefined,
            },
            'operation',
          )
        },
      }
    },
  }
}
