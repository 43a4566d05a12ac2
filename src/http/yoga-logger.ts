import type { YogaLogger } from 'graphql-yoga'
import type { Logger } from '../observability/logger.js'

/**
 * yoga's own messages through pino: an Error as `err`, anything else as the message. Its debug
 * messages ("Parsing request to extract GraphQL parameters"…) are dropped: they say nothing the
 * operation and upstream call lines do not, and carry no request id to tell requests apart.
 */
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
