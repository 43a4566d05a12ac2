import type { Plugin } from 'graphql-yoga'
import { httpError } from '../errors/graphql-errors.js'

const bodyTooLarge = () => httpError('REQUEST_ENTITY_TOO_LARGE', 413, 'Request body too large')

// MAX_BODY_BYTES as yoga's `maxRequestBodySize` enforces it, cheaper: node reads exactly
// Content-Length bytes, so the header is the check; only a chunked body is counted.
export function useBodyLimit(maxBytes: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const length = request.headers.get('content-length')
      if (length !== null) {
        if (!/^\d+$/.test(length)) {
          throw httpError('BAD_REQUEST', 400, 'Content-Length header is invalid.')
        }
        if (Number(length) > maxBytes) throw bodyTooLarge()
        return
      }
      if (!requestParser || !request.body) return
      setRequestParser((original) => {
        const body = original.body
        if (!body) return requestParser(original)
        // A native stream takes the native TransformStream, a ponyfill one the ponyfill's.
        const Transform =
          body instanceof ReadableStream ? globalThis.TransformStream : fetchAPI.TransformStream
        let read = 0
        const counted = body.pipeThrough(
          new Transform<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              read += chunk.byteLength
              if (read > maxBytes) controller.error(bodyTooLarge())
              else controller.enqueue(chunk)
            },
          }),
        )
        return requestParser(
          new fetchAPI.Request(original.url, {
            method: original.method,
            headers: original.headers,
            signal: original.signal,
            body: counted,
            duplex: 'half',
          } as RequestInit),
        )
      })
    },
  }
}
