import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/config.js'
import { usePersistedDocuments } from '../../src/http/use-persisted-documents.js'
import { createLogger } from '../../src/observability/logger.js'
import { companyVars, michiels } from '../support/fixtures.js'
import { logSink } from '../support/log-sink.js'
import { metricsOf, sample } from '../support/metrics.js'
import { type Client, demoToken, type GraphQLResponse, startStack } from '../support/stack.js'

/**
 * Persisted documents (PERSISTED_DOCUMENTS, PERSISTED_DOCUMENTS_ONLY) and GRAPHIQL, over the
 * manifest GraphQL Code Generator writes for the tests' own operations (test/gql), plus one id in
 * Relay's form. Every refusal is made before any upstream call and counted as `refused`.
 */

const codegenManifest = JSON.parse(
  readFileSync(new URL('../gql/persisted-documents.json', import.meta.url), 'utf8'),
) as Record<string, string>
const idOf = (operation: string) => {
  const entry = Object.entries(codegenManifest).find(([, document]) =>
    document.startsWith(`query ${operation}(`),
  )
  if (!entry) throw new Error(`${operation} is not in test/gql/persisted-documents.json`)
  return entry
}
const [companyId, companyDocument] = idOf('CompanyByNumber')
/** An id as Relay's `--persist-output` writes them (an MD5 in hex). */
const RELAY_ID = '0f3c2e5a9b7d4c1e8a6f2b3d4c5e6f70'

const dir = mkdtempSync(join(tmpdir(), 'persisted-documents-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const file = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}
const manifestPath = file(
  'manifest.json',
  JSON.stringify({ ...codegenManifest, [RELAY_ID]: companyDocument }),
)

const log = logSink()
const stack = await startStack({}, { logger: createLogger('info', log.stream) })
const { demo } = stack
const company = michiels
const variables = companyVars(company)

interface Answer {
  status: number
  contentType: string | null
  body: GraphQLResponse<Record<string, unknown>>
}

/** A POST with any GraphQL-over-HTTP body (stack.post sends `query` and `variables` only). */
async function post(
  client: Client,
  body: Record<string, unknown>,
  accept = 'application/json',
): Promise<Answer> {
  const answer = await client.request({ headers: { accept, ...demoToken }, body })
  return {
    status: answer.status,
    contentType: answer.headers.get('content-type'),
    body: answer.json(),
  }
}

async function get(client: Client, search: Record<string, string>, accept: string) {
  const answer = await client.request({
    path: `/graphql?${new URLSearchParams(search)}`,
    headers: { accept, ...demoToken },
  })
  return {
    status: answer.status,
    contentType: answer.headers.get('content-type'),
    text: answer.text,
  }
}

const codes = (answer: Answer) => answer.body.errors?.map((e) => e.extensions?.code)
const apollo = (sha256Hash: string) => ({ persistedQuery: { version: 1, sha256Hash } })

describe('PERSISTED_DOCUMENTS', () => {
  const persisted = stack.replica({ persistedDocuments: manifestPath })

  it('runs a documentId of the manifest with the same data as the plain query', async () => {
    const plain = await stack.post(companyDocument, variables)
    expect(plain.body.errors).toBeUndefined()
    expect(plain.body.data?.company).toMatchObject({ name: company.name })
    demo.reset()

    const byId = await post(persisted, { documentId: companyId, variables })
    expect(byId.status).toBe(200)
    expect(byId.body.errors).toBeUndefined()
    expect(byId.body.data).toEqual(plain.body.data)
    // It went through the budget like any other operation.
    expect(byId.body.extensions?.cost).toMatchObject({ upstreamCalls: demo.calls().length })
    expect(demo.calls().length).toBeGreaterThan(0)
  })

  it('takes a documentId in a GET query string too', async () => {
    const answer = await get(
      persisted,
      { documentId: companyId, variables: JSON.stringify(variables) },
      'application/graphql-response+json',
    )
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text).data.company).toMatchObject({ name: company.name })
  })

  it("runs Apollo's sha256Hash: the bare hex of a codegen id, or the id itself", async () => {
    const hex = companyId.replace(/^sha256:/, '')
    expect(hex).toMatch(/^[0-9a-f]{64}$/)
    for (const hash of [hex, companyId]) {
      const answer = await post(persisted, { variables, extensions: apollo(hash) })
      expect(answer.body.errors).toBeUndefined()
      expect(answer.body.data?.company).toMatchObject({ name: company.name })
    }
  })

  it("runs an id in Relay's form", async () => {
    const answer = await post(persisted, { documentId: RELAY_ID, variables })
    expect(answer.body.data?.company).toMatchObject({ name: company.name })
  })

  it('refuses an unknown id with PERSISTED_QUERY_NOT_FOUND, no upstream call', async () => {
    const unknown = `sha256:${'0'.repeat(64)}`
    const json = await post(persisted, { documentId: unknown, variables })
    expect(json.status).toBe(200)
    expect(json.body.data).toBeUndefined()
    expect(codes(json)).toEqual(['PERSISTED_QUERY_NOT_FOUND'])
    expect(json.body.errors?.[0]?.message).toBe('PersistedQueryNotFound')

    const spec = await post(
      persisted,
      { documentId: unknown, variables },
      'application/graphql-response+json',
    )
    expect(spec.status).toBe(400)
    expect(codes(spec)).toEqual(['PERSISTED_QUERY_NOT_FOUND'])

    const hash = await post(persisted, { variables, extensions: apollo('f'.repeat(64)) })
    expect(codes(hash)).toEqual(['PERSISTED_QUERY_NOT_FOUND'])
    expect(demo.calls()).toEqual([])
  })

  it('still runs plain queries, and an Apollo hash sent with its query', async () => {
    const plain = await post(persisted, { query: companyDocument, variables })
    expect(plain.body.data?.company).toMatchObject({ name: company.name })
    const registering = await post(persisted, {
      query: companyDocument,
      variables,
      extensions: apollo('f'.repeat(64)),
    })
    expect(registering.body.data?.company).toMatchObject({ name: company.name })
  })

  it('refuses a query with a documentId, or neither, with BAD_REQUEST, no upstream call', async () => {
    const both = await post(persisted, { query: companyDocument, documentId: companyId, variables })
    expect(codes(both)).toEqual(['BAD_REQUEST'])
    const neither = await post(persisted, { variables }, 'application/graphql-response+json')
    expect(neither.status).toBe(400)
    expect(codes(neither)).toEqual(['BAD_REQUEST'])
    expect(demo.calls()).toEqual([])
  })

  it('logs and counts the refusals as refused', async () => {
    const fresh = stack.replica({ persistedDocuments: manifestPath })
    log.clear()
    await post(fresh, { documentId: 'nope', variables })
    await post(fresh, { documentId: companyId, variables })
    const text = await metricsOf(fresh)
    expect(sample(text, 'gateway_operations_total{status="refused"}')).toBe(1)
    expect(sample(text, 'gateway_operations_total{status="ok"}')).toBe(1)
    const lines = log.lines().filter((l) => l.msg === 'operation')
    expect(lines).toMatchObject([
      { outcome: 'refused', status: 200, upstreamCalls: 0, errors: ['PERSISTED_QUERY_NOT_FOUND'] },
      { outcome: 'ok', operation: 'CompanyByNumber' },
    ])
  })
})

describe('PERSISTED_DOCUMENTS_ONLY', () => {
  const only = stack.replica({ persistedDocuments: manifestPath, persistedDocumentsOnly: true })

  it('refuses a plain query with PERSISTED_QUERY_ONLY, no upstream call', async () => {
    const json = await post(only, { query: companyDocument, variables })
    expect(json.status).toBe(200)
    expect(json.body.data).toBeUndefined()
    expect(codes(json)).toEqual(['PERSISTED_QUERY_ONLY'])
    const spec = await post(
      only,
      { query: companyDocument, variables },
      'application/graphql-response+json',
    )
    expect(spec.status).toBe(400)
    expect(codes(spec)).toEqual(['PERSISTED_QUERY_ONLY'])
    // A GET too, and Apollo's retry with the query text.
    const viaGet = await get(
      only,
      { query: companyDocument, variables: JSON.stringify(variables) },
      'application/json',
    )
    expect(JSON.parse(viaGet.text).errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY')
    const retry = await post(only, {
      query: companyDocument,
      variables,
      extensions: apollo(companyId.replace(/^sha256:/, '')),
    })
    expect(codes(retry)).toEqual(['PERSISTED_QUERY_ONLY'])
    expect(demo.calls()).toEqual([])
  })

  it('runs the persisted documents, by documentId and by Apollo hash', async () => {
    const byId = await post(only, { documentId: companyId, variables })
    expect(byId.body.errors).toBeUndefined()
    expect(byId.body.data?.company).toMatchObject({ name: company.name })
    const byHash = await post(only, {
      variables,
      extensions: apollo(companyId.replace(/^sha256:/, '')),
    })
    expect(byHash.body.data).toEqual(byId.body.data)
  })

  it('counts the refusals as refused', async () => {
    const fresh = stack.replica({ persistedDocuments: manifestPath, persistedDocumentsOnly: true })
    await post(fresh, { query: companyDocument, variables })
    await post(fresh, { query: '{ nope }' })
    const text = await metricsOf(fresh)
    expect(sample(text, 'gateway_operations_total{status="refused"}')).toBe(2)
  })
})

describe('start-up', () => {
  it('adds no plugin without PERSISTED_DOCUMENTS', () => {
    expect(
      usePersistedDocuments({ persistedDocuments: undefined, persistedDocumentsOnly: false }),
    ).toEqual([])
  })

  it.each([
    ['a missing file', join(dir, 'missing.json'), /missing\.json: cannot be read \(ENOENT\)$/],
    ['a file that is not JSON', file('broken.json', '{ "a": '), /broken\.json: is not JSON/],
    ['an array', file('array.json', '["query { lists { totalCount } }"]'), /JSON object/],
    ['a document that is not a string', file('number.json', '{ "a": 1 }'), /at "a"/],
    ['an empty manifest', file('empty.json', '{}'), /holds no documents$/],
    [
      'a document that does not parse',
      file('syntax.json', '{ "abc": "query { lists {" }'),
      /the document "abc" is not GraphQL: Syntax Error/,
    ],
  ])('refuses %s with one line naming PERSISTED_DOCUMENTS', (_, path, detail) => {
    let error: unknown
    try {
      stack.replica({ persistedDocuments: path })
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(ConfigError)
    const { message } = error as ConfigError
    expect(message).toMatch(/^Invalid setting PERSISTED_DOCUMENTS: /)
    expect(message).toMatch(detail)
    expect(message).not.toContain('\n')
  })

  it('refuses PERSISTED_DOCUMENTS_ONLY without a manifest', () => {
    expect(() => stack.replica({ persistedDocumentsOnly: true })).toThrow(
      /^Invalid setting PERSISTED_DOCUMENTS: must be set when PERSISTED_DOCUMENTS_ONLY=true/,
    )
    expect(() => stack.replica({ persistedDocumentsOnly: true })).toThrow(ConfigError)
  })
})

describe('GRAPHIQL', () => {
  const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

  it('serves GraphiQL to a browser by default', async () => {
    const page = await get(stack, {}, 'text/html')
    expect(page.status).toBe(200)
    expect(page.contentType).toMatch(/^text\/html/)
    expect(page.text).toContain('Company data gateway')
  })

  it('false: a browser GET gets a GraphQL-over-HTTP answer, not a page', async () => {
    const off = stack.replica({ graphiql: false })
    const html = await get(off, {}, 'text/html')
    expect(html.contentType ?? '').not.toMatch(/html/)
    expect(html.text).not.toMatch(/<html/i)
    expect(html.status).toBe(406)

    const page = await get(off, {}, browser)
    expect(page.contentType ?? '').not.toMatch(/html/)
    expect(page.text).not.toMatch(/<html/i)
    // `*/*` picks application/json; a GET without a query is malformed: 400 (GraphQL over HTTP).
    expect(page.contentType).toMatch(/^application\/json/)
    expect(page.status).toBe(400)
    expect(JSON.parse(page.text).errors[0].extensions.code).toBe('BAD_REQUEST')

    // A query sent as a browser page request is refused before it runs: no page, no paid call.
    demo.reset()
    const disguised = await get(
      off,
      { query: companyDocument, variables: JSON.stringify(variables) },
      'text/html',
    )
    expect(disguised.status).toBe(406)
    expect(demo.calls()).toEqual([])

    // GraphQL over GET still works.
    const query = await get(
      off,
      { query: companyDocument, variables: JSON.stringify(variables) },
      'application/graphql-response+json',
    )
    expect(JSON.parse(query.text).data.company).toMatchObject({ name: company.name })
  })
})
