import { readFileSync } from 'node:fs'

/**
 * contract/upstream-rest-api.md as the demo upstream's tests read it: the field tables and
 * response shapes of the document turned into shapes, and the differences between an answer and
 * a shape, key by key and type by type. Nothing here comes from the gateway's code.
 */

const DOC = readFileSync(new URL('../../contract/upstream-rest-api.md', import.meta.url), 'utf8')

type Primitive = 'string' | 'integer' | 'number' | 'boolean'
export type Shape =
  | { kind: Primitive }
  | { kind: 'nullable'; of: Shape }
  | { kind: 'array'; of: Shape }
  | { kind: 'object'; fields: Record<string, Shape> }

const PRIMITIVES: readonly string[] = ['string', 'integer', 'number', 'boolean']
const isPrimitive = (text: string): text is Primitive => PRIMITIVES.includes(text)

/** The text of the document from one heading to another. */
function part(from: string, to: string): string {
  const start = DOC.indexOf(from)
  const end = DOC.indexOf(to, start + from.length)
  if (start < 0 || end < 0) throw new Error(`the document has no part "${from}" … "${to}"`)
  return DOC.slice(start + from.length, end)
}

/** The `### ` sections of a part: heading and body. */
function sections(text: string): { heading: string; body: string }[] {
  return text
    .split(/^### /m)
    .slice(1)
    .map((chunk) => {
      const newline = chunk.indexOf('\n')
      return { heading: chunk.slice(0, newline).trim(), body: chunk.slice(newline + 1) }
    })
}

/** The rows of the (first) table of a section, keyed by the lower-cased header cells. */
function table(body: string): Record<string, string>[] {
  const lines = body.split('\n').filter((line) => line.trim().startsWith('|'))
  const cells = (line: string) =>
    line
      .trim()
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim())
  const [header, _rule, ...rows] = lines
  if (!header) return []
  const names = cells(header).map((name) => name.toLowerCase())
  return rows.map((row) => Object.fromEntries(cells(row).map((c, i) => [names[i] ?? `${i}`, c])))
}

/** "### Company identifier (object, `identifier`)" → "company identifier", and its body. */
export const resourceBodies = new Map(
  sections(part('## Resources and their fields', '## States and transitions')).map(
    ({ heading, body }) => [(heading.split(' (')[0] ?? heading).toLowerCase(), body],
  ),
)
const resourceShapes = new Map<string, Shape>()

/** A resource of the document as a shape, from its field table. */
export function resource(name: string): Shape {
  const key = name.toLowerCase()
  const known = resourceShapes.get(key)
  if (known) return known
  const body = resourceBodies.get(key)
  if (body === undefined) throw new Error(`the document has no resource "${name}"`)
  // "All monetary and ratio fields are JSON numbers": the type of a field listed without one.
  const listedType = /are JSON numbers/.test(body) ? 'number' : undefined
  const fields: Record<string, Shape> = {}
  for (const row of table(body)) {
    fields[row.field ?? ''] = typeShape(row.type ?? '', row.notes ?? '', listedType)
  }
  const shape: Shape = { kind: 'object', fields }
  resourceShapes.set(key, shape)
  return shape
}

/** The resource a text names, the longest name first ("company identifier of the requested company"). */
function named(text: string): Shape {
  const lower = text.trim().toLowerCase()
  const name = [...resourceBodies.keys()]
    .filter((n) => lower === n || lower.startsWith(`${n} `))
    .sort((a, b) => b.length - a.length)[0]
  if (!name) throw new Error(`the document names no resource "${text}"`)
  return resource(name)
}

/** A Type cell: "integer", "integer or null", "array of string", "company identifier", "object". */
function typeShape(type: string, notes: string, listedType?: string): Shape {
  const orNull = /^(.*) or null$/.exec(type)
  if (orNull) return { kind: 'nullable', of: typeShape(orNull[1] ?? '', notes, listedType) }
  const arrayOf = /^array of (.*)$/.exec(type)
  if (arrayOf) return { kind: 'array', of: typeShape(arrayOf[1] ?? '', notes, listedType) }
  if (isPrimitive(type)) return { kind: type }
  if (type === 'object') return objectFromNotes(notes, listedType)
  return named(type)
}

/**
 * An object described in the Notes cell: inline (`{ a: integer, b }`, a bare key taking its type
 * from the resource of "same fields as a …"), or as a list "a (number, nullable), b; prose".
 */
function objectFromNotes(notes: string, listedType?: string): Shape {
  const inline = /`(\{[^`]*\})`/.exec(notes)
  if (inline) {
    const same = /same fields as a ([a-z ]+)\)/.exec(notes)
    const base = same ? named(same[1] ?? '') : undefined
    return parseShape(inline[1] ?? '', (key) => {
      const field = base?.kind === 'object' ? base.fields[key] : undefined
      if (!field) throw new Error(`the document gives no type for ${key} in "${notes}"`)
      return field
    })
  }
  const fields: Record<string, Shape> = {}
  const list = notes.split(';')[0] ?? ''
  for (const entry of list.match(/[A-Za-z]+(?: \([^)]*\))?/g) ?? []) {
    const [, name = '', details = ''] = /^([A-Za-z]+)(?: \(([^)]*)\))?$/.exec(entry) ?? []
    const words = details.split(',').map((w) => w.trim())
    const type = words.find(isPrimitive) ?? listedType
    if (type === undefined || !isPrimitive(type)) {
      throw new Error(`the document gives no type for ${entry}`)
    }
    fields[name] = words.includes('nullable')
      ? { kind: 'nullable', of: { kind: type } }
      : { kind: type }
  }
  return { kind: 'object', fields }
}

/** `{ key: value, bareKey }`, `[Type, ...]` or a type name; a bare key names a resource. */
function parseShape(text: string, bare: (key: string) => Shape = named): Shape {
  const tokens = text
    .split(/([{}[\],:])/)
    .map((t) => t.trim())
    .filter((t) => t !== '')
  let i = 0
  const value = (): Shape => {
    const token = tokens[i++] ?? ''
    if (token === '{') {
      const fields: Record<string, Shape> = {}
      while (i < tokens.length && tokens[i] !== '}') {
        const key = tokens[i++] ?? ''
        if (tokens[i] === ':') {
          i++
          fields[key] = value()
        } else fields[key] = bare(key)
        if (tokens[i] === ',') i++
      }
      i++
      return { kind: 'object', fields }
    }
    if (token === '[') {
      const of = value()
      while (i < tokens.length && tokens[i] !== ']') i++ // ", ..."
      i++
      return { kind: 'array', of }
    }
    return isPrimitive(token) ? { kind: token } : named(token)
  }
  return value()
}

/** The endpoints: path template, response shape (from "Response: `…`") and query table. */
export const endpoints = sections(part('## Endpoints', '## Authentication'))
  .filter(({ heading }) => /^\d+\./.test(heading))
  .map(({ heading, body }) => ({
    heading,
    path: /`GET ([^`]+)`/.exec(body)?.[1] ?? '',
    response: parseShape(/Response: `([^`]+)`/.exec(body)?.[1] ?? ''),
    query: table(body),
  }))

export function responseShape(template: string): Shape {
  const endpoint = endpoints.find((e) => e.path === template)
  if (!endpoint) throw new Error(`the document has no endpoint ${template}`)
  return endpoint.response
}

export const LISTS = '/v1/lists'
export const LIST = '/v1/lists/{id}'
export const LIST_COMPANIES = '/v1/lists/{id}/companies'
export const LIST_CONTACTS = '/v1/lists/{id}/contacts'
export const FINANCIALS = '/v1/companies/{countryCode}/{companyNumber}/financials'
export const LOOKALIKES = '/v1/companies/{countryCode}/{companyNumber}/lookalikes'
export const RELATIONSHIPS = '/v1/companies/{countryCode}/{companyNumber}/relationships'
export const CONTACTS = '/v1/companies/{countryCode}/{companyNumber}/contacts'

/** "Paged endpoints accept query `limit` (…, maximum 500)". */
export const MAX_LIMIT = Number(/`limit` \([^)]*maximum (\d+)\)/.exec(DOC)?.[1])
/** The Default column of the company contacts' `limit`. */
export const CONTACTS_DEFAULT_LIMIT = Number(
  endpoints.find((e) => e.path === CONTACTS)?.query.find((q) => q.query === 'limit')?.default,
)

/**
 * How an answer differs from a shape: "data[2].identifier.name: missing", "x: null, not string",
 * "pagination: not in the document". Empty when the answer is exactly as documented.
 */
export function problems(value: unknown, shape: Shape, path = ''): string[] {
  const at = (key: string | number) =>
    typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key
  switch (shape.kind) {
    case 'nullable':
      return value === null ? [] : problems(value, shape.of, path)
    case 'array':
      return Array.isArray(value)
        ? value.flatMap((item, i) => problems(item, shape.of, at(i)))
        : [`${path}: ${kindOf(value)}, not array`]
    case 'object': {
      if (kindOf(value) !== 'object') return [`${path}: ${kindOf(value)}, not object`]
      const record = value as Record<string, unknown>
      return [
        ...Object.entries(shape.fields).flatMap(([key, field]) =>
          key in record ? problems(record[key], field, at(key)) : [`${at(key)}: missing`],
        ),
        ...Object.keys(record)
          .filter((key) => !(key in shape.fields))
          .map((key) => `${at(key)}: not in the document`),
      ]
    }
    default: {
      const kind = kindOf(value)
      const fits = kind === shape.kind || (shape.kind === 'number' && kind === 'integer')
      return fits ? [] : [`${path}: ${kind}, not ${shape.kind}`]
    }
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}
