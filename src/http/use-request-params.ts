import { getOperationAST } from 'graphql'
import type { GraphQLParams, Plugin } from 'graphql-yoga'
import { errorResponse, httpError, refusal } from '../errors/graphql-errors.js'

// A GraphQL-over-HTTP request's parameters, read one way from a query string, a form and a JSON
// body (yoga reads each its own way). Malformed: BAD_REQUEST, HTTP 400, echoing nothing sent.

const PARAMETERS = new Map<string, 'string' | 'object'>([
  ['query', 'string'],
  ['operationName', 'string'],
  ['variables', 'object'],
  ['extensions', 'object'],
  ['documentId', 'string'],
])
const NAMES = [...PARAMETERS.keys()].join(', ')

const malformed = (message: string) => httpError('BAD_REQUEST', 400, message)

function json(text: string, malformedMessage: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw malformed(malformedMessage)
  }
}

/** Null, absent and empty are the same: not given (a URL has no null). */
function paramsOf(raw: unknown, documents: boolean, encoded: boolean): GraphQLParams {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw malformed('The body must be one JSON object: one operation per request.')
  }
  const params: Record<string, unknown> = {}
  for (const [name, given] of Object.entries(raw)) {
    if (given === null || given === '') continue
    const type = PARAMETERS.get(name)
    if (type === undefined) throw malformed(`Unknown parameter: a request has only ${NAMES}.`)
    const value =
      encoded && type === 'object'
        ? json(given as string, `The ${name} parameter is not JSON.`)
        : given
    if (value === null) continue
    if (
      type === 'object' ? typeof value !== 'object' || Array.isArray(value) : typeof value !== type
    ) {
      throw malformed(
        `The ${name} parameter must be ${type === 'object' ? 'an object' : 'a string'}.`,
      )
    }
    params[name] = value
  }
  if (params.query !== undefined && params.documentId !== undefined) {
    throw malformed('Send either a query or a documentId, not both.')
  }
  if (params.query === undefined && !documents) throw malformed('Must provide a query.')
  return params as GraphQLParams
}

const mediaType = (request: Request) =>
  request.headers.get('content-type')?.split(',')[0]?.split(';')[0]?.trim().toLowerCase()

// Reads every GET and POST (another Content-Type: 415); an operationName naming no operation is
// refused as an invalid document is. `documents`: PERSISTED_DOCUMENTS may stand for a query.
export function useRequestParams(documents: boolean): Plugin {
  const fromText = (text: string) => {
    const given = new URLSearchParams(text)
    // A parameter given twice is as malformed as one of the wrong type in JSON.
    if (new Set(given.keys()).size < [...given.keys()].length) {
      throw malformed('A parameter is given more than once.')
    }
    return paramsOf(Object.fromEntries(given), documents, true)
  }
  return {
    onRequestParse({ request, url, setRequestParser, endResponse, fetchAPI }) {
      if (request.method === 'GET') return setRequestParser(() => fromText(url.search))
      if (request.method !== 'POST') return
      const type = mediaType(request)
      if (type === 'application/json' || type === 'application/graphql+json') {
        return setRequestParser(async (body) => {
          const text = await body.text()
          return paramsOf(json(text, 'The body is not JSON.'), documents, false)
        })
      }
      if (type === 'application/x-www-form-urlencoded') {
        return setRequestParser(async (body) => fromText(await body.text()))
      }
      if (type === 'application/graphql') {
        return setRequestParser(async (body) =>
          paramsOf({ query: await body.text() }, documents, false),
        )
      }
      endResponse(
        errorResponse(
          fetchAPI.Response,
          415,
          'BAD_REQUEST',
          'The gateway does not read a body of this Content-Type: send application/json.',
        ),
      )
    },
    onParse() {
      return ({ result, context: { params, request } }) => {
        if (result instanceof Error) return
        const operation = getOperationAST(result, params.operationName)
        if (!operation) {
          throw refusal(
            'OPERATION_RESOLUTION_FAILURE',
            params.operationName
              ? 'The document has no operation of that operationName.'
              : 'The document has no operation, or several: name one with operationName.',
          )
        }
        // yoga would answer a mutation over GET 405, before validation finds the schema has none.
        if (operation.operation === 'mutation' && request.method === 'GET') {
          throw refusal(
            'GRAPHQL_VALIDATION_FAILED',
            'This gateway is read-only: it has no mutations, only queries.',
            { nodes: operation },
          )
        }
      }
    },
  }
}
