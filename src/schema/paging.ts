import { createHash } from 'node:crypto'
import { badUserInput } from '../errors/graphql-errors.js'
import { MAX_LIMIT } from '../upstream/resources/common.js'
import type { ArgumentCheck } from './argument-checks.js'

/**
 * Relay cursor paging over limit/offset, for every connection. A cursor is the item's offset plus
 * a tag of its connection (name, parent, arguments that change its items): the same item has the
 * same cursor on every page, and a cursor used on another connection is refused.
 */

export interface PageArgs {
  first?: number | null | undefined
  after?: string | null | undefined
  last?: number | null | undefined
  before?: string | null | undefined
}

/** Upstream limit per request, and so the largest page a client may ask for. */
const MAX_PAGE = MAX_LIMIT
const DEFAULT_PAGE = 20

/** Part of a collection and the collection's size, as one upstream page returns it. */
export interface Slice<T> {
  items: readonly T[]
  total: number
}

export function sliceOf<T>(response: {
  data: readonly T[]
  pagination: { total: number }
}): Slice<T> {
  return { items: response.data, total: response.pagination.total }
}

/** What a cursor is bound to: the connection's name, its parent and the arguments that change
 *  its items, in a fixed order. Absent values count as null. */
export function connectionKey(name: string, ...identity: unknown[]): string {
  return JSON.stringify([name, ...identity.map((part) => part ?? null)])
}

/** A short digest of the connection key: tells connections apart without revealing them. */
const tagOf = (connection: string) =>
  createHash('sha256').update(connection).digest('base64url').slice(0, 12)

/** The cursor of the item at `offset`; the connection's tag once for a whole page. */
export function encodeCursor(connection: string, offset: number, tag = tagOf(connection)): string {
  return Buffer.from(`${offset}:${tag}`).toString('base64url')
}

/** The offset and connection tag a cursor holds; undefined when it is not a cursor at all. */
function parseCursor(cursor: string): { offset: number; tag: string } | undefined {
  const text = Buffer.from(cursor, 'base64url').toString()
  const match = /^(\d{1,9}):([\w-]{12})$/.exec(text)
  // Only the canonical encoding: a Relay client must get back the cursor it sent.
  if (!match || Buffer.from(text).toString('base64url') !== cursor) return undefined
  return { offset: Number(match[1]), tag: match[2] as string }
}

/** The offset of a well-formed cursor, refused when it belongs to another connection (known only
 *  once its parent is; admission refused malformed ones). */
function decodeCursor(connection: string, cursor: string, argument: string): number {
  const parsed = parseCursor(cursor)
  if (parsed?.tag !== tagOf(connection)) {
    throw badUserInput(
      `${argument} is not a cursor of this connection: a cursor only pages the connection it came from (same parent, view, filters and minScore).`,
      argument,
    )
  }
  return parsed.offset
}

/** Paging arguments, judged before the operation runs: first and last each 0..500 and never both
 *  (Relay's spec discourages it), cursors well formed. */
export const pageArguments: ArgumentCheck = (args) => {
  for (const argument of ['first', 'last']) {
    const value = args[argument] as number | null | undefined
    if (value != null && !(Number.isInteger(value) && value >= 0 && value <= MAX_PAGE)) {
      return { argument, message: `${argument} must be between 0 and ${MAX_PAGE}.` }
    }
  }
  if (args.first != null && args.last != null) {
    return { argument: 'last', message: 'Give first or last, not both.' }
  }
  for (const argument of ['after', 'before']) {
    const value = args[argument] as string | null | undefined
    if (value != null && parseCursor(value) === undefined) {
      return { argument, message: `${argument} is not a cursor this gateway made.` }
    }
  }
  return undefined
}

/** Most items one page can hold for these (checked) arguments. */
export function pageSize(args: PageArgs): number {
  return args.first ?? args.last ?? DEFAULT_PAGE
}

/** Upstream reads one page can need: `last` without `before` reads the total first. */
export function pageReads(args: PageArgs): number {
  return args.last != null && args.before == null ? 2 : 1
}

/**
 * The connection for checked arguments, from as few `fetch(offset, limit)` calls as possible;
 * `toEdge` adds edge fields. `last` without `before` needs the total: one call fetches `last`
 * items and gives it; a second is made only for items the first did not bring.
 */
export async function pageOverOffsets<T, E extends { node: unknown } = { node: T }>(
  connection: string,
  args: PageArgs,
  fetch: (offset: number, limit: number) => Promise<Slice<T>>,
  toEdge: (item: T) => E = (item) => ({ node: item }) as E,
) {
  let first = args.first ?? undefined
  let last = args.last ?? undefined
  const after = args.after == null ? undefined : decodeCursor(connection, args.after, 'after')
  const before = args.before == null ? undefined : decodeCursor(connection, args.before, 'before')
  if (first === undefined && last === undefined) {
    // Backward when only `before` is given, forward otherwise.
    if (before !== undefined && after === undefined) last = DEFAULT_PAGE
    else first = DEFAULT_PAGE
  }

  let start = after === undefined ? 0 : after + 1
  let end = before ?? Number.POSITIVE_INFINITY
  if (first !== undefined) end = Math.min(end, start + first)
  let probe: { offset: number; slice: Slice<T> } | undefined
  if (last !== undefined) {
    if (end === Number.POSITIVE_INFINITY) {
      // Where the collection ends is unknown until an answer gives the total.
      probe = { offset: start, slice: await fetch(start, Math.max(last, 1)) }
      end = Math.max(start, probe.slice.total)
    }
    start = Math.max(start, end - last)
  }
  const want = Math.max(0, end - start)
  const { offset, slice } =
    probe !== undefined && (want === 0 || start + want <= probe.offset + probe.slice.items.length)
      ? probe
      : // Even an empty page is fetched: it gives the total and tells whether the parent exists.
        { offset: start, slice: await fetch(start, Math.max(want, 1)) }
  const { items, total } = slice
  const from = start - offset
  const nodes = items.slice(from, from + want)
  // Cursors are made when a caller asks for one: a page read through `nodes` needs none.
  let tag: string | undefined
  const cursorAt = (offset: number) => {
    tag ??= tagOf(connection)
    return encodeCursor(connection, offset, tag)
  }
  const edges = nodes.map((item, i) => ({
    ...toEdge(item),
    get cursor() {
      return cursorAt(start + i)
    },
  }))
  return {
    edges,
    pageInfo: {
      hasPreviousPage: start > 0 && total > 0,
      hasNextPage: start + nodes.length < total,
      get startCursor() {
        return nodes.length > 0 ? cursorAt(start) : null
      },
      get endCursor() {
        return nodes.length > 0 ? cursorAt(start + nodes.length - 1) : null
      },
    },
    totalCount: total,
  }
}
