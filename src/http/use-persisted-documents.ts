import { readFileSync } from 'node:fs'
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations'
import { parse } from 'graphql'
import type { GraphQLParams, Plugin } from 'graphql-yoga'
import { z } from 'zod'
import { type Config, ConfigError } from '../config.js'
import { httpError, refusal } from '../errors/graphql-errors.js'
import { routerTraffic } from './router-traffic.js'

/**
 * Persisted documents (PERSISTED_DOCUMENTS, PERSISTED_DOCUMENTS_ONLY in contract/runtime.md).
 *
 * The manifest is read once, when the gateway is built: a JSON object `{ "<id>": "<document>" }`,
 * as relay-compiler's `persistConfig` and GraphQL Code Generator's `persistedDocuments` write it (the
 * latter's ids are `sha256:<hex>`). Every document must parse; a bad file stops start-up with a
 * ConfigError naming PERSISTED_DOCUMENTS.
 *
 * A request names a document with `documentId` (GraphQL over HTTP's persisted documents: in the
 * JSON body of a POST, in the query string of a GET) or with Apollo's
 * `extensions.persistedQuery.sha256Hash`, looked up as a manifest id, bare or as `sha256:<hash>`
 * (so Apollo clients find codegen's ids). yoga's usePersistedOperations then runs that document as
 * if it had been sent as `query`: parse and validation (shape limits included), the budget and the
 * log see it like any other. Everything refused here is refused in `onParams`, before a context
 * exists, so before any upstream call:
 *
 * - an id the manifest does not hold: PERSISTED_QUERY_NOT_FOUND (Apollo clients then resend the
 *   query text, which runs unless PERSISTED_DOCUMENTS_ONLY);
 * - with PERSISTED_DOCUMENTS_ONLY, a request with a `query`: PERSISTED_QUERY_ONLY;
 * - neither a query nor an id: BAD_REQUEST, HTTP 400, as every malformed request (both a query
 *   and a `documentId` are refused as the request is read: use-request-params.ts).
 *
 * The first two answer like the gateway's other refusals before execution: HTTP 400 to
 * application/graphql-response+json, 200 to application/json (GraphQL over HTTP). All reach the
 * operation log and `gateway_operations_total` as `refused` (no `data`).
 *
 * Router traffic (SUBGRAPH_ROUTER_SECRET) is not held to PERSISTED_DOCUMENTS_ONLY: the router
 * enforces it, and the operations it generates are in no manifest.
 *
 * Neither setting: no plugin at all, so requests pay nothing for the feature.
 */

const SETTING = 'PERSISTED_DOCUMENTS'

/** The manifest's shape: ids and documents, both non-empty strings. */
const manifestSchema = z
  .record(
    z.string().min(1, 'an id is empty'),
    z.string({ error: 'a document must be a string' }).trim().min(1, 'a document is empty'),
    { error: 'must be a JSON object of "<id>": "<document>"' },
  )
  .refine((manifest) => Object.keys(manifest).length > 0, 'holds no documents')

/** One line, whatever the parser or the file system said. */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim()

function invalid(path: string, problem: string): ConfigError {
  return new ConfigError(`Invalid setting ${SETTING}: ${path}: ${oneLine(problem)}`)
}

/** The documents of a manifest file by id; a ConfigError naming PERSISTED_DOCUMENTS otherwise. */
export function loadPersistedDocuments(path: string): ReadonlyMap<string, string> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw invalid(path, `cannot be read${code ? ` (${code})` : ''}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw invalid(path, `is not JSON (${(error as Error).message})`)
  }
  const parsed = manifestSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const at = issue?.path.length ? ` (at "${String(issue.path[0])}")` : ''
    throw invalid(path, `${issue?.message ?? 'invalid manifest'}${at}`)
  }
  const documents = new Map<string, string>()
  for (const [id, document] of Object.entries(parsed.data)) {
    try {
      parse(document)
    } catch (error) {
      throw invalid(path, `the document "${id}" is not GraphQL: ${(error as Error).message}`)
    }
    documents.set(id, document)
  }
  return documents
}

/**
 * The document a manifest holds under `id`; a bare SHA-256 (Apollo's `sha256Hash`) also finds
 * the `sha256:<hex>` ids GraphQL Code Generator writes.
 */
export function lookUp(documents: ReadonlyMap<string, string>, id: string): string | null {
  return documents.get(id) ?? documents.get(`sha256:${id}`) ?? null
}

/** Apollo's automatic persisted queries: `extensions.persistedQuery.sha256Hash`. */
function apolloHashOf(params: GraphQLParams): unknown {
  const persisted: unknown = params.extensions?.persistedQuery
  return typeof persisted === 'object' && persisted !== null
    ? (persisted as { sha256Hash?: unknown }).sha256Hash
    : undefined
}

export type PersistedDocumentSettings = Pick<
  Config,
  'persistedDocuments' | 'persistedDocumentsOnly'
> &
  Partial<Pick<Config, 'routerSecret'>>

/**
 * The yoga plugins of the settings: none without PERSISTED_DOCUMENTS, else the manifest's lookup
 * (read now, so a bad file fails start-up). PERSISTED_DOCUMENTS_ONLY without a manifest is a
 * ConfigError: nothing could ever run.
 */
export function usePersistedDocuments(settings: PersistedDocumentSettings): Plugin[] {
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
  // The id a request names; `documentId` first, as GraphQL over HTTP defines it.
  const idOf = (params: GraphQLParams & { documentId?: string }): string | null => {
    if (params.documentId !== undefined) return params.documentId
    const hash = apolloHashOf(params)
    return typeof hash === 'string' && hash !== '' ? hash : null
  }
  return [
    usePersistedOperations({
      allowArbitraryOperations: only ? (routerTraffic(settings.routerSecret) ?? false) : true,
      extractPersistedOperationId: idOf,
      getPersistedOperation: (id) => lookUp(documents, id),
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
