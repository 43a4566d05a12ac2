import { meros } from 'meros/browser'
import { type GraphQLResponse, Network, Observable, type PayloadError } from 'relay-runtime'

/** One result as the gateway sends it: a whole answer, or one part of an answer in parts. */
interface Part {
  data?: Record<string, unknown> | null
  errors?: PayloadError[]
  extensions?: Record<string, unknown>
  hasNext?: boolean
  incremental?: Increment[]
}

/** A deferred fragment's data, or a streamed list's next items (`path` ends at the first's index). */
interface Increment {
  data?: Record<string, unknown> | null
  items?: unknown[]
  errors?: PayloadError[]
  extensions?: Record<string, unknown>
  label: string
  path: (string | number)[]
}

/**
 * Relay's payloads for one part. The gateway sends the 2022 format (later parts carry
 * `incremental: [...]`); Relay reads each deferred fragment, and each streamed item, as a payload
 * of its own with `label` and `path` at the top level, and finds the field of an error by its
 * path from that payload's data.
 */
function relayPayloads({ incremental = [], hasNext, ...result }: Part) {
  const payload = (data: unknown, { errors, ...increment }: Increment, path = increment.path) => ({
    ...increment,
    data,
    path,
    errors: errors
      ?.filter((error) => path.every((key, i) => error.path?.[i] === key))
      .map((error) => ({ ...error, path: error.path?.slice(path.length) })),
  })
  const later = incremental.flatMap(({ items, ...increment }) => {
    if (!items) return [payload(increment.data, increment)]
    const start = Number(increment.path.at(-1))
    const list = increment.path.slice(0, -1)
    return items.map((item, i) => payload(item, increment, [...list, start + i]))
  })
  return 'data' in result || 'errors' in result ? [result, ...later] : later
}

/**
 * A Relay network layer for the gateway: the `fetchFunction` of Relay's network-layer guide,
 * returning an Observable, with meros reading the multipart/mixed answer part by part.
 */
export function createNetwork(url: string, headers: Record<string, string> = {}) {
  return Network.create((operation, variables) =>
    Observable.create<GraphQLResponse>((sink) => {
      const controller = new AbortController()
      fetch(url, {
        method: 'POST',
        headers: {
          ...headers,
          accept: 'multipart/mixed, application/graphql-response+json, application/json',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ query: operation.text, variables }),
        signal: controller.signal,
      })
        .then((response) => meros<Part>(response))
        .then(async (parts) => {
          if (parts instanceof Response) return sink.next(await parts.json())
          for await (const part of parts) {
            if (!part.json) throw new Error(`a part that is not JSON: ${part.body}`)
            for (const payload of relayPayloads(part.body)) sink.next(payload as GraphQLResponse)
          }
        })
        .then(
          () => sink.complete(),
          (error) => sink.closed || sink.error(error),
        )
      return () => controller.abort()
    }),
  )
}
