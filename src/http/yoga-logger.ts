import type { YogaLogger } from 'graphql-yoga'
import type { Logger } from '../observability/logger.js'

/** yoga's own messages through pino; its debug ones, which say nothing ours do not, dropped. */
export function yogaLogger(logger: Logger): YogaLogger {
  const forward =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (first: unknown, ...rest: unknown[]) =>
      first instanceof Error
        ? logger[level]({ err: first }, first.message)
        : logger[level]({ details: rest.length > 0 ? rest.map(String) : undefined }, String(first))
  return {
    debug: () => {},
    info: forward('info'),
    warn: forward('warn'),
    error: forward('error'),
  }
}
