import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client'
import { Defer20220824Handler } from '@apollo/client/incremental'

/**
 * An Apollo Client for the gateway: its HttpLink reads multipart/mixed answers itself, and
 * Defer20220824Handler reads the gateway's parts (the 2022 format: `incremental: [...]`).
 */
export function createApolloClient(uri: string, headers: Record<string, string> = {}) {
  return new ApolloClient({
    link: new HttpLink({ uri, headers }),
    cache: new InMemoryCache(),
    incrementalHandler: new Defer20220824Handler(),
  })
}
