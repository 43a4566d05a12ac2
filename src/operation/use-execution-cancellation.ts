import type { Plugin } from 'graphql-yoga'
import type { Context } from '../context.js'

/**
 * A client that goes away stops the execution of its operation, not only its reads: the
 * executor checks the signal it is given between fields. yoga's own plugin gives it the request's
 * signal, a whatwg-node Proxy whose every property read runs a string search, read at every
 * field; the operation's signal is a native one that aborts with the request's (and when the
 * operation ends).
 */
export function useExecutionCancellation(): Plugin<Context> {
  const attach = ({ args }: { args: { contextValue: unknown } }) => {
    ;(args as { signal?: AbortSignal }).signal = (args.contextValue as Context).operation.signal
  }
  return { onExecute: attach, onSubscribe: attach }
}
