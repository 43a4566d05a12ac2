/**
 * The server context of the start-up warm-up's operations, which the log, metrics and traces
 * leave out: no HTTP request carries it (node:http passes `{ req, res }`).
 */
export const WARM_UP = { warmUp: true } as const

export const isWarmUp = (serverContext: unknown): boolean =>
  (serverContext as Partial<typeof WARM_UP> | undefined)?.warmUp === true
