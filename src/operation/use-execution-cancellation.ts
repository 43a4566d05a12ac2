import type { Plugin } from 'graphql-yoga'
import type { Context } from '../context.js'

/**
 * A client that goes away stops its operation's execution. The executor reads the signal at every
 * field: the operation's native one, not yoga's request signal (a Proxy costly to read).
 */
export function useExecutionCancellation(): Plugin<Context> {
  const attach = ({ args }: { args: { contextValue: unknown } }) => {
    ;(args as { signal?: AbortSignal }).signal = (args.contextValue as Context).operation.signal
  }
  return { onExecute: attach, onSubscribe: attach }
}
