import { type DestinationStream, pino } from 'pino'

/**
 * JSON-lines logger (pino), with pino's standard fields (time, pid, hostname) that log shippers
 * expect. Authorization headers and tokens are redacted wherever they appear.
 */
export function createLogger(level: string, destination?: DestinationStream) {
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
