import type { z } from 'zod'
import { environment, telemetrySettings } from '../src/config.js'
import { FAULT_KINDS, RESOURCES } from '../src/demo-upstream/faults.js'
import { demoEnvironment } from '../src/demo-upstream/settings.js'
import { ERROR_CODES, type ErrorCode, isRetryable } from '../src/errors/codes.js'

/**
 * The tables of docs/ that are written from code, so they cannot go stale: each sits between
 * `<!-- <name>:start -->` and `<!-- <name>:end -->` in its page. `npm run docs` writes them
 * (scripts/docs.ts); test/docs.test.ts fails when a page differs from what it would write.
 */

export interface Setting {
  readonly name: string
  /** As written in the table: `value`, or unset. */
  readonly default: string
  readonly meaning: string
}

/** The settings of a zod object of environment variables, each with its default and meaning. */
function catalogue(schema: z.ZodObject, file: string): Setting[] {
  const defaults: Record<string, unknown> = schema.parse({})
  return Object.entries(schema.shape).map(([name, field]) => {
    if (!field.description) throw new Error(`${file}: ${name} has no .describe()`)
    const value = defaults[name]
    return {
      name,
      default: value === undefined ? 'unset' : `\`${String(value)}\``,
      meaning: field.description,
    }
  })
}

/** Every setting the gateway reads, in src/config.ts's order. */
export function settingsCatalogue(): Setting[] {
  const telemetry = Object.entries(telemetrySettings).map(([name, meaning]) => ({
    name,
    default: 'unset',
    meaning,
  }))
  return [...catalogue(environment, 'src/config.ts'), ...telemetry]
}

/** One markdown table; a cell may hold no line break and escapes `|`. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cell = (text: string) => {
    if (/[\r\n]/.test(text)) throw new Error(`a table cell spans lines: ${text}`)
    return text.replaceAll('|', '\\|')
  }
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')
}

const renderCatalogue = (settings: Setting[]) =>
  table(
    ['variable', 'default', 'meaning'],
    settings.map((s) => [`\`${s.name}\``, s.default, s.meaning]),
  )

export const renderSettings = () => renderCatalogue(settingsCatalogue())

export const renderErrorCodes = () =>
  table(
    ['code', 'retryable', 'when'],
    Object.entries(ERROR_CODES).map(([code, when]) => [
      `\`${code}\``,
      isRetryable(code as ErrorCode) ? 'yes' : 'no',
      when,
    ]),
  )

const renderDemoSettings = () =>
  renderCatalogue(catalogue(demoEnvironment, 'src/demo-upstream/settings.ts'))

const renderDemoResources = () =>
  table(
    ['resource', 'REST path', 'what reads it'],
    Object.entries(RESOURCES).map(([name, { rest, reads }]) => [
      `\`${name}\``,
      `\`${rest}\``,
      reads,
    ]),
  )

const renderDemoFaults = () =>
  table(
    ['fault', 'what the demo does'],
    Object.entries(FAULT_KINDS).map(([kind, what]) => [`\`${kind}\``, what]),
  )

/** The generated tables: where each goes and what it holds. */
export const GENERATED = [
  { page: 'docs/configuration.md', marker: 'settings', render: renderSettings },
  { page: 'docs/errors.md', marker: 'error-codes', render: renderErrorCodes },
  { page: 'docs/demo-upstream.md', marker: 'demo-settings', render: renderDemoSettings },
  { page: 'docs/demo-upstream.md', marker: 'demo-resources', render: renderDemoResources },
  { page: 'docs/demo-upstream.md', marker: 'demo-faults', render: renderDemoFaults },
] as const

/**
 * `page` with the text between its `marker` comments replaced by `table`, blank lines around it
 * so that no renderer takes a comment for a row.
 */
export function withTable(page: string, marker: string, table: string): string {
  const start = `<!-- ${marker}:start -->`
  const end = `<!-- ${marker}:end -->`
  const from = page.indexOf(start)
  const to = page.indexOf(end)
  if (from < 0 || to < from) throw new Error(`no ${start} … ${end} in the page`)
  return `${page.slice(0, from + start.length)}\n\n${table}\n\n${page.slice(to)}`
}
