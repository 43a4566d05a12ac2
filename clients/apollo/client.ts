import {
  ApolloClient,
  ApolloLink,
  type DocumentNode,
  HttpLink,
  InMemoryCache,
} from '@apollo/client'
import { Defer20220824Handler } from '@apollo/client/incremental'
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries'
import { ResponseLog } from './gateway-answers.js'
import { gatewayLink, headersLink } from './link.js'
import { possibleTypes, typePolicies } from './type-policies.js'

export interface ClientOptions {
  /** The gateway's GraphQL endpoint, e.g. `https://gateway.example.com/graphql`. */
  url: string
  /** Sent with every request (a bearer token, `Accept-Language`); a function is asked each time. */
  headers?: Record<string, string> | (() => Record<string, string>)
  /**
   * Send documents by their hash only (`extensions.persistedQuery`), for a gateway with
   * PERSISTED_DOCUMENTS: GraphQL Code Generator's `persistedDocuments` puts it in each document.
   */
  persisted?: boolean
}

/**
 * `errorPolicy: 'all'` by default, declared so that the types of results say so: a failed field is
 * null beside its error (`error`), and the rest of the page is there (docs/errors.md).
 */
declare module '@apollo/client' {
  export namespace ApolloClient {
    export namespace DeclareDefaultOptions {
      interface WatchQuery {
        errorPolicy: 'all'
      }
      interface Query {
        errorPolicy: 'all'
      }
    }
  }
}

const logs = new WeakMap<ApolloClient, ResponseLog>()

/** The log of request ids and stale flags of a client made by createApolloClient. */
export function responseLogOf(client: ApolloClient): ResponseLog {
  const log = logs.get(client)
  if (!log) throw new Error('This Apollo Client was not made by createApolloClient.')
  return log
}

/** The hash codegen's `persistedDocuments` embeds in a document (`__meta__.hash`). */
const embeddedHash = (document: DocumentNode) => {
  const hash = (document as { __meta__?: { hash?: string } }).__meta__?.hash
  if (!hash)
    throw new Error('A document without __meta__.hash: generate it with persistedDocuments.')
  return hash
}

/**
 * An Apollo Client for the gateway: HttpLink reads multipart/mixed itself and
 * Defer20220824Handler the gateway's parts (the 2022 `incremental` format); the cache pages every
 * connection of the schema; `errorPolicy: 'all'` keeps a page's data beside its field errors.
 */
export function createApolloClient({ url, headers = {}, persisted = false }: ClientOptions) {
  const log = new ResponseLog()
  const http = new HttpLink({ uri: url, ...(typeof headers === 'object' && { headers }) })
  const client = new ApolloClient({
    link: ApolloLink.from([
      gatewayLink(log),
      ...(typeof headers === 'function' ? [headersLink(headers)] : []),
      ...(persisted ? [new PersistedQueryLink({ generateHash: embeddedHash })] : []),
      http,
    ]),
    cache: new InMemoryCache({ typePolicies, possibleTypes }),
    incrementalHandler: new Defer20220824Handler(),
    defaultOptions: {
      watchQuery: {
        errorPolicy: 'all',
      },
      query: { errorPolicy: 'all' },
    },
  })
  logs.set(client, log)
  return client
}
