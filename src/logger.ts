import { pino } from 'pino'

/** JSON-lines logger (pino). Authorization headers and tokens are redacted wherever they appear. */
export function createLogger(level: string) {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: ['authorization', 'token', '*.authorization', '*.token', 'headers.authorization'],
      censor: '[redacted]',
    },
  })
}

export type Logger = ReturnType<typeof createLogger>
