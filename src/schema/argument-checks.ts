import type { GraphQLField } from 'graphql'

/**
 * What a field refuses of its arguments, declared on the field and judged before the operation
 * runs (src/operation/use-admission.ts): BAD_USER_INPUT, no upstream call. What needs a parent
 * (a cursor of another connection, an item of `nodes(ids)`) the resolver refuses, at its path.
 */

type Args = Record<string, unknown>

export type ArgumentCheck = (args: Args) => { argument: string; message: string } | undefined

export function argumentChecks(...checks: ArgumentCheck[]): { argumentChecks: ArgumentCheck[] } {
  return { argumentChecks: checks }
}

export function checksOf(field: GraphQLField<unknown, unknown>): ArgumentCheck[] | undefined {
  return field.extensions.argumentChecks as ArgumentCheck[] | undefined
}

/** A check of one argument's value when it is given (not null). */
function given(argument: string, refuse: (value: unknown) => string | undefined): ArgumentCheck {
  return (args) => {
    const value = args[argument]
    const message = value === null || value === undefined ? undefined : refuse(value)
    return message === undefined ? undefined : { argument, message }
  }
}

export const fraction = (argument: string) =>
  given(argument, (value) =>
    (value as number) >= 0 && (value as number) <= 1
      ? undefined
      : `${argument} must be between 0 and 1.`,
  )

export const notNegative = (argument: string) =>
  given(argument, (value) =>
    (value as number) >= 0 ? undefined : `${argument} must not be negative.`,
  )

/** Caller-given text and lists go into an upstream URL: bounded, so the upstream never refuses it
 *  (431) after a paid call. */
export const MAX_SEARCH_LENGTH = 200
const MAX_CODES = 20
const MAX_CODE_LENGTH = 50

/** Search text: 1 to MAX_SEARCH_LENGTH characters, not only blanks. */
export const searchText = (argument: string) =>
  given(argument, (value) => {
    if ((value as string).trim() === '') {
      return `${argument} must not be empty; leave it out to search nothing.`
    }
    return [...(value as string)].length > MAX_SEARCH_LENGTH
      ? `${argument} is at most ${MAX_SEARCH_LENGTH} characters.`
      : undefined
  })

const CODE = new RegExp(`^[\\w-]{1,${MAX_CODE_LENGTH}}$`)

/** Codes such as C_LEVEL, sent comma-separated: nothing in them needs escaping in a URL. */
export const codeList = (argument: string) =>
  given(argument, (value) => {
    const codes = value as string[]
    if (!codes.every((code) => CODE.test(code))) {
      return `${argument} values are codes such as C_LEVEL: letters, digits, _ and -, 1 to ${MAX_CODE_LENGTH} characters.`
    }
    return new Set(codes).size > MAX_CODES
      ? `${argument} holds at most ${MAX_CODES} distinct values.`
      : undefined
  })

/** What the limits of `codeList` are, for a field's description. */
export const CODE_LIST_LIMITS = `at most ${MAX_CODES} distinct codes of letters, digits, _ and -, each at most ${MAX_CODE_LENGTH} characters`

/** Codes as sent: each once, sorted (equal filters are one read); none is no filter. */
export function distinctCodes(values: readonly string[] | null | undefined) {
  return values?.length ? [...new Set(values)].sort() : undefined
}

/** A check made of the parser that throws the refusal (the resolver parses with it too). */
export function parses(argument: string, parse: (args: Args) => unknown): ArgumentCheck {
  return (args) => {
    try {
      parse(args)
      return undefined
    } catch (error) {
      return { argument, message: (error as Error).message }
    }
  }
}
