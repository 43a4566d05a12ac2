import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations'
import { parse } from 'graphql'
import type { GraphQLParams, Plugin } from 'graphql-yoga'
import { z } from 'zod'
import { type Config, ConfigError } from '../config.js'
import { httpError, refusal } from '../errors/graphql-errors.js'
import { invalidFile, readJsonSetting } from './json-setting.js'
import { routerTraffic } from './router-traffic.js'

// Persisted documents (contract/runtime.md), named by `documentId` or Apollo's hash and run by
// yoga's usePersistedOperations as if sent as `query`. The router (SUBGRAPH_ROUTER_SECRET) is not
// held to PERSISTED_DOCUMENTS_ONLY: it enforces it, and its operations are in no manifest.

const SETTING = 'PERSISTED_DOCUMENTS'

const manifestSchema = z
  .record(
    z.string().min(1, 'an id is empty'),
    z.string({ error: 'a document must be a string' }).trim().min(1, 'a document is empty'),
    { error: 'must be a JSON object of "<id>": "<document>"' },
  )
  .refine((manifest) => Object.keys(manifest).length > 0, 'holds no documents')

/** The documents of a manifest file by id, each parsed once so a bad one fails start-up. */
function loadPersistedDocuments(path: string): ReadonlyMap<string, string> {
  const documents = new Map(Object.entries(readJsonSetting(SETTING, path, manifestSchema)))
  for (const [id, document] of documents) {
    try {
      parse(document)
    } catch (error) {
      throw invalidFile(
        SETTING,
        path,
        `the document "${id}" is not GraphQL: ${(error as Error).message}`,
      )
    }
  }
  return documents
}

/** None without PERSISTED_DOCUMENTS, so requests pay nothing for the feature. */
export function usePersistedDocuments(
  settings: Pick<Config, 'persistedDocuments' | 'persistedDocumentsOnly'> &
    Partial<Pick<Config, 'routerSecret'>>,
): Plugin[] {
  const { persistedDocuments: path, persistedDocumentsOnly: only } = settings
  if (path === undefined) {
    if (only) {
      throw new ConfigError(
        `Invalid setting ${SETTING}: must be set when PERSISTED_DOCUMENTS_ONLY=true, or no operation could run`,
      )
    }
    return []
  }
  const documents = loadPersistedDocuments(path)
  // `documentId` first, as GraphQL over HTTP defines it.
  const idOf = (params: GraphQLParams & { documentId?: string }): string | null => {
    if (params.documentId !== undefined) return params.documentId
    const persisted = params.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined
    const hash = persisted?.sha256Hash
    return typeof hash === 'string' && hash !== '' ? hash : null
  }
  return [
    usePersistedOperations({
      allowArbitraryOperations: only ? (routerTraffic(settings.routerSecret) ?? false) : true,
      extractPersistedOperationId: idOf,
      // A bare SHA-256 (Apollo's) also finds the `sha256:<hex>` ids GraphQL Code Generator writes.
      getPersistedOperation: (id) => documents.get(id) ?? documents.get(`sha256:${id}`) ?? null,
      customErrors: {
        // Apollo clients recognise the message, GraphQL-over-HTTP ones the code.
        notFound: () => refusal('PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound'),
        persistedQueryOnly: () =>
          refusal(
            'PERSISTED_QUERY_ONLY',
            'PersistedQueryOnly: only persisted documents run here; send a documentId instead of a query.',
          ),
        keyNotFound: () =>
          httpError(
            'BAD_REQUEST',
            400,
            only
              ? 'Must provide a documentId: only persisted documents run here.'
              : 'Must provide a query string or a documentId.',
          ),
      },
    }),
  ]
}
