import type { z } from 'zod'

export type QueryValue = string | number | boolean | readonly string[] | undefined

/** One REST endpoint: how its parameters become a request, and the shape of its answer. */
export interface Endpoint<P, T> {
  /** Method and path template as the REST document writes them, e.g. `GET /v1/lists/{id}`. */
  readonly name: string
  readonly request: (params: P) => {
    path: readonly (string | number)[]
    query?: Record<string, QueryValue>
  }
  readonly response: z.ZodType<T>
}

export function defineEndpoint<P, S extends z.ZodType>(
  name: string,
  request: Endpoint<P, z.output<S>>['request'],
  response: S,
): Endpoint<P, z.output<S>> {
  return { name, request, response: response as z.ZodType<z.output<S>> }
}

/** A request ready to send; `pathAndQuery`, canonical, identifies it (same text, same answer). */
export interface PreparedRequest<T = unknown> {
  readonly endpoint: Endpoint<unknown, T>
  readonly pathAndQuery: string
}

/** The path, every segment encoded, and a canonical query: absent values dropped, keys sorted,
 *  list values sorted and comma-joined. */
export function prepare<P, T>(endpoint: Endpoint<P, T>, params: P): PreparedRequest<T> {
  const { path, query = {} } = endpoint.request(params)
  const pathname = `/${path.map((segment) => encodeURIComponent(String(segment))).join('/')}`
  const search = new URLSearchParams()
  for (const name of Object.keys(query).sort()) {
    const value = query[name]
    // An empty list filters nothing: leave it out, like an absent one.
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue
    search.set(name, Array.isArray(value) ? [...value].sort().join(',') : String(value))
  }
  const qs = search.toString()
  const pathAndQuery = qs === '' ? pathname : `${pathname}?${qs}`
  return { endpoint: endpoint as Endpoint<unknown, T>, pathAndQuery }
}
