import { useCallback, useState, useSyncExternalStore } from 'react'
import { useRelayEnvironment } from 'react-relay'
import { type GraphQLTaggedNode, getFragment, getRequest, ROOT_ID } from 'relay-runtime'
import { gatewayRecords } from './environment.js'
import {
  type GatewayError,
  GatewayRequestError,
  gatewayError,
  networkError,
} from './gateway-answers.js'

/**
 * The errors of whatever Relay hands the app: a GatewayRequestError (thrown to an error
 * boundary), the `errors` of a field marked `@catch`, or anything else that went wrong.
 */
export function gatewayErrors(error: unknown): GatewayError[] {
  if (error instanceof GatewayRequestError) return [...error.errors]
  if (Array.isArray(error)) return error.map((e) => gatewayError(e))
  return [networkError(error instanceof Error ? error.message : String(error))]
}

/** The request id and stale flag of the last answer to `query` (null before the first). */
export function useResponseInfo(query: GraphQLTaggedNode) {
  const { log } = gatewayRecords(useRelayEnvironment())
  const name = getRequest(query).params.name
  return useSyncExternalStore(log.subscribe, () => log.get(name)) ?? null
}

/** What usePaginationFragment returns that useLoadMore uses. */
interface Pagination {
  data: unknown
  hasNext: boolean
  isLoadingNext: boolean
  loadNext(count: number, options?: { onComplete?: (error: Error | null) => void }): unknown
}

/**
 * The handle key of the fragment's connection (`__<key>_connection`): a paginated fragment has
 * exactly one, wherever it sits in the reader AST (inside @catch, @required, an inline fragment).
 */
function connectionHandleKey(node: unknown): string | undefined {
  if (!node || typeof node !== 'object') return undefined
  const { kind, name } = node as { kind?: unknown; name?: unknown }
  if (kind === 'LinkedField' && typeof name === 'string' && /^__.+_connection$/.test(name)) {
    return name
  }
  for (const value of Object.values(node)) {
    const found = connectionHandleKey(value)
    if (found) return found
  }
  return undefined
}

/**
 * Load more for a usePaginationFragment: `errors` is the last page's failure (the rows shown
 * stay: see handlerProvider), and `loadMore` again is the retry, from the same cursor.
 */
export function useLoadMore(fragment: GraphQLTaggedNode, pagination: Pagination, count: number) {
  const environment = useRelayEnvironment()
  const [errors, setErrors] = useState<GatewayError[] | null>(null)
  const { data, loadNext } = pagination
  const loadMore = useCallback(() => {
    const refetch = getFragment(fragment).metadata?.refetch
    const idField =
      refetch && 'identifierInfo' in refetch ? refetch.identifierInfo?.identifierField : undefined
    const parentId = idField ? String((data as Record<string, unknown>)[idField]) : ROOT_ID
    const handleKey = connectionHandleKey(getFragment(fragment).selections) ?? ''
    setErrors(null)
    loadNext(count, {
      onComplete: (error) =>
        setErrors(
          error
            ? gatewayErrors(error)
            : (gatewayRecords(environment).failedPages.get(parentId, handleKey) ?? null),
        ),
    })
  }, [environment, fragment, data, loadNext, count])
  return { loadMore, errors, loading: pagination.isLoadingNext, hasMore: pagination.hasNext }
}
