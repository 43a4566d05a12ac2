import type { YogaLogger } from 'graphql-yoga'
import { type DestinationStream, pino } from 'pino'

/**
 * JSON-lines logger (pino), with pino's standard fields (time, pid, hostname) that log shippers
 * expect. Authorization headers and tokens are redacted wherever they appear.
 *
 * Lines go to stdout synchronously, as Node writes to a pipe anyway: pino's default asynchronous
 * destination flushes at process exit, where sonic-boom 4 retries a failed write for ever, so
 * with stdout's reader gone (EPIPE) the process never exited. Written at once, the EPIPE reaches
 * pino, which stops logging, and nothing is left to flush.
 */
export function createLogger(
  level: string,
  destination: DestinationStream = pino.destination({ dest: 1, sync: true }),
) {
  return pino(
    {
      level,
      redact: {
        paths: ['authorization', 'token', '*.authorization', '*.token', 'headers.authorization'],
        censor: '[redacted]',
      },
    },
    destination,
  )
}

export type Logger = ReturnType<typeof createLogger>

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
