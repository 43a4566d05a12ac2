/**
 * Compares an answer given under faults with the clean answer to the same operation, leaf by
 * leaf: what was lost must lie under the path of an error (the fields that needed the failed
 * read), and every null must have a reason.
 */

type Path = readonly (string | number)[]
interface Leaf {
  path: Path
  value: unknown
}
interface PathError {
  path?: Path
  extensions?: { code?: unknown }
}

export interface Loss {
  /** Leaves of the clean answer. */
  leaves: number
  /** Leaves of the clean answer missing or changed under the path of an error: the failed fields. */
  lostUnderErrors: string[]
  /** Leaves of the clean answer missing or changed anywhere else: goal none. */
  lostBeyondErrors: string[]
  /** Nulls the clean answer does not have, with no error at or above them: goal none. */
  nullsWithoutError: string[]
  /** Errors without a code, or whose path does not hold a null. */
  badErrors: string[]
}

function leavesOf(value: unknown, path: Path = []): Leaf[] {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value)
      ? value.map((v, i) => [i, v] as const)
      : Object.entries(value)
    return entries.flatMap(([key, child]) => leavesOf(child, [...path, key]))
  }
  return [{ path, value }]
}

/** Every null in `value` (objects and lists that collapsed to null included), with its path. */
function nullsOf(value: unknown, path: Path = []): Path[] {
  if (value === null) return [path]
  if (typeof value !== 'object') return []
  const entries = Array.isArray(value)
    ? value.map((v, i) => [i, v] as const)
    : Object.entries(value)
  return entries.flatMap(([key, child]) => nullsOf(child, [...path, key]))
}

function at(value: unknown, path: Path): unknown {
  let here = value
  for (const key of path) {
    if (here === null || typeof here !== 'object') return undefined
    here = (here as Record<string | number, unknown>)[key]
  }
  return here
}

const isUnder = (path: Path, prefix: Path) =>
  prefix.length <= path.length && prefix.every((key, i) => path[i] === key)
const show = (path: Path) => path.join('.')

export function answerLoss(
  clean: unknown,
  faulted: { data?: unknown; errors?: readonly PathError[] },
): Loss {
  const errorPaths = (faulted.errors ?? []).map((e) => e.path ?? [])
  const underError = (path: Path) => errorPaths.some((p) => isUnder(path, ['data', ...p]))
  const loss: Loss = {
    leaves: 0,
    lostUnderErrors: [],
    lostBeyondErrors: [],
    nullsWithoutError: [],
    badErrors: [],
  }
  for (const { path, value } of leavesOf(clean, ['data'])) {
    loss.leaves++
    if (Object.is(at({ data: faulted.data }, path), value)) continue
    ;(underError(path) ? loss.lostUnderErrors : loss.lostBeyondErrors).push(show(path))
  }
  for (const path of nullsOf(faulted.data, ['data'])) {
    if (at({ data: clean }, path) !== null && !underError(path)) {
      loss.nullsWithoutError.push(show(path))
    }
  }
  for (const error of faulted.errors ?? []) {
    const path = error.path ?? []
    if (typeof error.extensions?.code !== 'string' || at(faulted.data, path) !== null) {
      loss.badErrors.push(`${show(path)} ${String(error.extensions?.code)}`)
    }
  }
  return loss
}
