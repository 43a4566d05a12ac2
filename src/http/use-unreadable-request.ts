import type { Plugin } from 'graphql-yoga'
import { errorResponse } from '../errors/error-response.js'
import { httpError } from '../errors/graphql-errors.js'

/**
 * A request yoga cannot read is the caller's error, answered with a coded body before anything
 * runs. yoga answered a POST of a Content-Type none of its parsers reads with an empty 415, and
 * let JSON.parse's SyntaxError through for variables or extensions that are not JSON in a GET's
 * query string or a form's body (a 500 and an error-level stack).
 */
export function useUnreadableRequest(): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, endResponse, fetchAPI }) {
      if (request.method === 'GET') {
        refuseNonJson(new URL(request.url).searchParams)
        return
      }
      if (!requestParser) {
        // Other methods: yoga's 405 follows.
        if (request.method !== 'POST') return
        endResponse(
          errorResponse(
            fetchAPI.Response,
            415,
            'BAD_REQUEST',
            'The gateway does not read a body of this Content-Type: send application/json.',
          ),
        )
        return
      }
      setRequestParser(async (original) => {
        if (isForm(original)) refuseNonJson(new URLSearchParams(await original.clone().text()))
        return requestParser(original)
      })
    },
  }
}

function isForm(request: Request): boolean {
  const type = request.headers.get('content-type')?.split(',')[0]?.split(';')[0]?.trim()
  return type === 'application/x-www-form-urlencoded'
}

/** The parameters yoga JSON.parses, refused by name when they are not JSON. */
function refuseNonJson(params: URLSearchParams) {
  for (const name of ['variables', 'extensions']) {
    const value = params.get(name)
    if (!value) continue
    try {
      JSON.parse(value)
    } catch {
      throw httpError('BAD_REQUEST', 400, `The ${name} parameter is not JSON.`)
    }
  }
}
