import { readFileSync } from 'node:fs'
import type { z } from 'zod'
import { ConfigError } from '../config.js'

/** A ConfigError naming the setting and its file, on one line whatever the parser said. */
export const invalidFile = (setting: string, path: string, problem: string) =>
  new ConfigError(`Invalid setting ${setting}: ${path}: ${problem.replace(/\s+/g, ' ').trim()}`)

/** The JSON file a setting names, of `schema`'s shape; else a ConfigError naming the setting. */
export function readJsonSetting<T>(setting: string, path: string, schema: z.ZodType<T>): T {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw invalidFile(setting, path, `cannot be read${code ? ` (${code})` : ''}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw invalidFile(setting, path, `is not JSON (${(error as Error).message})`)
  }
  const parsed = schema.safeParse(json)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const at = issue?.path.length ? ` (at "${String(issue.path[0])}")` : ''
  throw invalidFile(setting, path, `${issue?.message ?? 'is of the wrong shape'}${at}`)
}
