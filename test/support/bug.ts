import type { GraphQLObjectType } from 'graphql'
import { vi } from 'vitest'
import { Loaders } from '../../src/loaders/index.js'
import { schema } from '../../src/schema/index.js'

/** The error a bug in the gateway throws (a property read on undefined). */
export const bug = new TypeError("Cannot read properties of undefined (reading 'x')")

/**
 * A bug in the gateway wherever it reads one of `resources` (last path segment: `lookalikes`,
 * `relationships` …): that read throws `bug`. Restore it with `mockRestore()`.
 */
export function bugInReads(resources: string[]) {
  const read = Loaders.prototype.read
  return vi.spyOn(Loaders.prototype, 'read').mockImplementation(function (
    this: Loaders,
    ...args: Parameters<typeof read>
  ) {
    if (resources.some((name) => args[0].name.endsWith(`/${name}`))) throw bug
    return read.apply(this, args)
  } as typeof read)
}

/** A bug in one field's resolver: it rejects with `error`. Restore it with `mockRestore()`. */
export function bugInField(type: string, field: string, error: unknown) {
  const definition = (schema.getType(type) as GraphQLObjectType).getFields()[field]
  if (!definition?.resolve) throw new Error(`no resolver for ${type}.${field}`)
  return vi.spyOn(definition, 'resolve').mockRejectedValue(error)
}
