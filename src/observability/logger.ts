import type { Writable } from 'node:stream'
import { type DestinationStream, pino } from 'pino'

/** Log output held for a reader that has stopped reading, past which lines are dropped. */
const MAX_UNREAD_BYTES = 4 * 1024 * 1024

/** JSON-lines logger (pino's standard fields); authorization headers and tokens redacted. */
export function createLogger(level: string, destination: DestinationStream = stdoutLines()) {
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
 * Lines to stdout that never hold the process (a synchronous write to a full pipe blocks the event
 * loop; sonic-boom retries a failed write at exit for ever): dropped, and counted, while the reader
 * lags MAX_UNREAD_BYTES behind or after it is gone (EPIPE).
 */
function stdoutLines(out: Writable = process.stdout): DestinationStream {
  let gone = false
  let dropped = 0
  out.on('error', () => {
    gone = true
  })
  return {
    write(line: string) {
      if (gone) return
      if (out.writableLength > MAX_UNREAD_BYTES) {
        dropped++
        return
      }
      if (dropped > 0) {
        out.write(
          `${JSON.stringify({ level: 40, time: Date.now(), msg: `${dropped} log lines dropped: stdout was not being read` })}\n`,
        )
        dropped = 0
      }
      out.write(line)
    },
  }
}
