/**
 * A @defer/@stream answer as a client meets it: the parts of a multipart/mixed answer, and the
 * one result a client puts back together from them.
 */

type Path = (string | number)[]

export interface PartError {
  message: string
  path?: Path
  extensions?: { code?: string }
}

/** One part of an incremental answer (graphql-tools' executor: `incremental[]` with `path`). */
export interface Part {
  data?: unknown
  incremental?: {
    data?: Record<string, unknown> | null
    items?: unknown[]
    path: Path
    label?: string
    errors?: PartError[]
  }[]
  hasNext: boolean
  extensions?: { cost?: { upstreamCalls: number; estimated: number } }
  errors?: PartError[]
}

/** The JSON parts of a multipart/mixed answer, in order. */
export function multipartParts({ text }: { text: string }): Part[] {
  return text
    .split(/\r?\n---/)
    .map((chunk) => chunk.slice(chunk.indexOf('{')))
    .filter((chunk) => chunk.startsWith('{'))
    .map((chunk) => JSON.parse(chunk.slice(0, chunk.lastIndexOf('}') + 1)) as Part)
}

/**
 * The JSON parts of a multipart/mixed answer still arriving, each as soon as it is whole (the
 * boundary after it has come): a test reads the first part while a later one is held back.
 */
export async function* partsAsTheyArrive(response: Response): AsyncGenerator<Part> {
  if (!response.body) throw new Error('the answer has no body')
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let given = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
    const whole = multipartParts({ text: text.slice(0, text.lastIndexOf('\n---')) })
    yield* whole.slice(given)
    given = whole.length
  }
}

/**
 * `value` merged into `into` as a client merges a part into what it has: objects field by
 * field, lists item by item (a deferred part repeats a list the answer already has, perhaps
 * shorter: a streamed list's first items only), anything else replaced.
 */
function merged(into: unknown, value: unknown): unknown {
  if (Array.isArray(into) && Array.isArray(value)) {
    const items = [...into]
    value.forEach((item, i) => {
      items[i] = merged(items[i], item)
    })
    return items
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
  if (isObject(into) && isObject(value)) {
    const fields = { ...into }
    for (const [key, field] of Object.entries(value)) fields[key] = merged(fields[key], field)
    return fields
  }
  return value
}

/**
 * The result the parts add up to, as a client assembles it: each deferred part's data merged at
 * its path, each streamed item put at its index, every part's errors kept. A part with no place
 * to go (its parent is missing or null) is an error here: the server should not have sent it.
 */
export function reassemble(parts: readonly Part[]): { data: unknown; errors: PartError[] } {
  const [first, ...rest] = parts
  if (!first) throw new Error('the answer has no part')
  const result: { data: unknown; errors: PartError[] } = {
    data: first.data,
    errors: [...(first.errors ?? [])],
  }
  const place = (path: Path, value: unknown) => {
    if (path.length === 0) {
      result.data = merged(result.data, value)
      return
    }
    const parent = path.slice(0, -1).reduce<unknown>((node, key) => {
      const child = (node as Record<string | number, unknown> | null | undefined)?.[key]
      if (child === null || typeof child !== 'object') {
        throw new Error(`a part at ${JSON.stringify(path)} has no parent in the answer`)
      }
      return child
    }, result.data) as Record<string | number, unknown>
    const key = path.at(-1) as string | number
    parent[key] = merged(parent[key], value)
  }
  for (const part of rest) {
    result.errors.push(...(part.errors ?? []))
    for (const increment of part.incremental ?? []) {
      result.errors.push(...(increment.errors ?? []))
      const index = increment.path.at(-1)
      increment.items?.forEach((item, i) => {
        place([...increment.path.slice(0, -1), (index as number) + i], item)
      })
      if (increment.data !== undefined) place(increment.path, increment.data)
    }
  }
  return result
}
