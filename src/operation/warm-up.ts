/**
 * The server context the start-up warm-up (createGateway's `warm`) runs its operations with: no
 * HTTP request carries it (node:http passes `{ req, res }`), so nothing a caller sends can look
 * like the warm-up. The operation log, the metrics and the traces leave these operations out.
 */
export const WARM_UP = { warmUp: true } as const

export const isWarmUp = (serverContext: unknown): boolean =>
  (serverContext as Partial<typeof WARM_UP> | undefined)?.warmUp === true
