import type { GraphQLField } from 'graphql'

/**
 * Caller-given text and lists that go into an upstream URL, bounded: unbounded, a 20,000-character
 * search or 3,000 filter values made a URL the upstream refused (431), an UPSTREAM_ERROR after a
 * paid call. A field declares its bounds where it is defined (`extensions: argumentBounds(…)`);
 * src/operation/use-argument-checks.ts refuses a value out of them with BAD_USER_INPUT before
 * the operation runs. Together they keep a query string to a few KiB.
 */

/** The message refusing a value, naming the argument and the bound; undefined when it fits. */
export type Bound = (value: unknown, argument: string) => string | undefined

export const MAX_SEARCH_LENGTH = 200
export const MAX_CODES = 20
export const MAX_CODE_LENGTH = 50

/** Search text: 1 to MAX_SEARCH_LENGTH characters, not only blanks. */
export const searchText: Bound = (value, argument) => {
  if (typeof value !== 'string') return undefined
  if (value.trim() === '') return `${argument} must not be empty; leave it out to search nothing.`
  if ([...value].length > MAX_SEARCH_LENGTH) {
    return `${argument} is at most ${MAX_SEARCH_LENGTH} characters.`
  }
  return undefined
}

const CODE = new RegExp(`^[\\w-]{1,${MAX_CODE_LENGTH}}$`)

/**
 * Codes such as C_LEVEL, sent comma-separated: at most MAX_CODES distinct ones, each of letters,
 * digits, `_` and `-` (nothing that needs escaping in a URL), at most MAX_CODE_LENGTH long.
 */
export const codeList: Bound = (value, argument) => {
  if (!Array.isArray(value)) return undefined
  if (!value.every((code) => typeof code === 'string' && CODE.test(code))) {
    return `${argument} values are codes such as C_LEVEL: letters, digits, _ and -, 1 to ${MAX_CODE_LENGTH} characters.`
  }
  if (new Set(value).size > MAX_CODES)
    return `${argument} holds at most ${MAX_CODES} distinct values.`
  return undefined
}

/** What the limits of `codeList` are, for a field's description. */
export const CODE_LIST_LIMITS = `at most ${MAX_CODES} distinct codes of letters, digits, _ and -, each at most ${MAX_CODE_LENGTH} characters`

/**
 * Codes as they are sent: each once, sorted (the same filters in another order are the same);
 * none at all is no filter, as the upstream reads it.
 */
export function distinctCodes(values: readonly string[] | null | undefined) {
  return values?.length ? [...new Set(values)].sort() : undefined
}

/** Field extensions declaring the bounds of some of its arguments. */
export function argumentBounds(bounds: Record<string, Bound>): {
  argumentBounds: Record<string, Bound>
} {
  return { argumentBounds: bounds }
}

/** The bounds a field declares, if any. */
export function boundsOf(field: GraphQLField<unknown, unknown>): Record<string, Bound> | undefined {
  return field.extensions.argumentBounds as Record<string, Bound> | undefined
}
