import { readFileSync } from 'node:fs'
import type { z } from 'zod'
import { ConfigError } from '../config.js'

/** A ConfigError naming the setting and its file, on one line whatever the parser said. */
export const invalidFile = (setting: string, path: string, problem: string) =>
  new ConfigError(`Invalid setting ${setting}: ${path}: ${problem.replace(/\s+/g, ' ').trim()}`)

/** The JSON file a setting names, of `schema`'s shape; else a ConfigError naming the setting. */
export function readJsonSetting<T>(setting: string, path: string, schema: z.ZodType<T>): T {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    // The file system's errors have a code, JSON.parse's none.
    const code = (error as NodeJS.ErrnoException).code
    const problem = code ? `cannot be read (${code})` : `is not JSON (${(error as Error).message})`
    throw invalidFile(setting, path, problem)
  }
  const parsed = schema.safeParse(json)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const at = issue?.path.length ? ` (at "${String(issue.path[0])}")` : ''
  throw invalidFile(setting, path, `${issue?.message ?? 'is of the wrong shape'}${at}`)
}
