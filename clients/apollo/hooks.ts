import { CombinedGraphQLErrors, type DocumentNode } from '@apollo/client'
import { useApolloClient } from '@apollo/client/react'
import { getOperationName } from '@apollo/client/utilities/internal'
import { useCallback, useState, useSyncExternalStore } from 'react'
import { responseLogOf } from './client.js'
import { type GatewayError, gatewayError, networkError } from './gateway-answers.js'

/**
 * The errors of an Apollo `error` (CombinedGraphQLErrors: field errors and refusals alike,
 * with the answer's request id), or of a failure with no GraphQL answer.
 */
export function gatewayErrors(error: unknown): GatewayError[] {
  if (error == null) return []
  if (CombinedGraphQLErrors.is(error)) {
    const requestId = error.extensions?.requestId
    return error.errors.map((e) =>
      gatewayError(e, typeof requestId === 'string' ? requestId : undefined),
    )
  }
  return [networkError(error instanceof Error ? error.message : String(error))]
}

/** The request id and stale flag of the last answer to `query` (null before the first). */
export function useResponseInfo(query: DocumentNode) {
  const log = responseLogOf(useApolloClient())
  const name = getOperationName(query) ?? ''
  return useSyncExternalStore(log.subscribe, () => log.get(name)) ?? null
}

interface PageInfo {
  hasNextPage: boolean
  endCursor?: string | null
}

/** What useQuery returns that useLoadMore uses. */
interface Paged<TData> {
  data: TData | undefined
  fetchMore(options: {
    variables: { after: string | null | undefined }
  }): Promise<{ data?: unknown; error?: unknown }>
}

/**
 * Load more for a useQuery whose connection is paged by `after` (its type policy merges the
 * pages): `errors` is the last page's failure, the rows shown stay (see `connection`), and
 * `loadMore` again is the retry, from the same cursor.
 */
export function useLoadMore<TData>(
  result: Paged<TData>,
  connectionOf: (data: TData | undefined) => { pageInfo: PageInfo } | null | undefined,
) {
  const [errors, setErrors] = useState<GatewayError[] | null>(null)
  const [loading, setLoading] = useState(false)
  const pageInfo = connectionOf(result.data)?.pageInfo
  const { fetchMore } = result
  const loadMore = useCallback(async () => {
    setErrors(null)
    setLoading(true)
    try {
      const page = await fetchMore({ variables: { after: pageInfo?.endCursor } })
      if (connectionOf(page.data as TData | undefined) == null) setErrors(gatewayErrors(page.error))
    } catch (error) {
      setErrors(gatewayErrors(error))
    } finally {
      setLoading(false)
    }
  }, [fetchMore, pageInfo?.endCursor, connectionOf])
  return { loadMore, errors, loading, hasMore: pageInfo?.hasNextPage ?? false }
}
