import { environment, telemetrySettings } from '../src/config.js'
import { ERROR_CODES } from '../src/errors/codes.js'

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

/** Every setting the gateway reads, in src/config.ts's order. */
export function settingsCatalogue(): Setting[] {
  const defaults: Record<string, unknown> = environment.parse({})
  const validated = Object.entries(environment.shape).map(([name, schema]) => {
    if (!schema.description) throw new Error(`src/config.ts: ${name} has no .describe()`)
    const value = defaults[name]
    return {
      name,
      default: value === undefined ? 'unset' : `\`${String(value)}\``,
      meaning: schema.description,
    }
  })
  const telemetry = Object.entries(telemetrySettings).map(([name, meaning]) => ({
    name,
    default: 'unset',
    meaning,
  }))
  return [...validated, ...telemetry]
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

export const renderSettings = () =>
  table(
    ['variable', 'default', 'meaning'],
    settingsCatalogue().map((s) => [`\`${s.name}\``, s.default, s.meaning]),
  )

export const renderErrorCodes = () =>
  table(
    ['code', 'retryable', 'when'],
    Object.entries(ERROR_CODES).map(([code, { retryable, when }]) => [
      `\`${code}\``,
      retryable ? 'yes' : 'no',
      when,
    ]),
  )

/** The generated tables: where each goes and what it holds. */
export const GENERATED = [
  { page: 'docs/configuration.md', marker: 'settings', render: renderSettings },
  { page: 'docs/errors.md', marker: 'error-codes', render: renderErrorCodes },
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
