import { vi } from 'vitest'
import { CompanyDirectory } from '../../src/loaders/company-directory.js'

/** The error a bug in the gateway throws (a property read on undefined). */
export const bug = new TypeError("Cannot read properties of undefined (reading 'x')")

/**
 * A bug in the gateway wherever it reads one of `resources` (last path segment: `lookalikes`,
 * `relationships` …) for a company: that read throws `bug`. Restore it with `mockRestore()`.
 */
export function bugInReads(resources: string[]) {
  const read = CompanyDirectory.prototype.read
  return vi.spyOn(CompanyDirectory.prototype, 'read').mockImplementation(function (
    this: CompanyDirectory,
    ...args: Parameters<typeof read>
  ) {
    if (resources.some((name) => args[0].template.endsWith(`/${name}`))) throw bug
    return read.apply(this, args)
  } as typeof read)
}
