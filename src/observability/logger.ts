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
