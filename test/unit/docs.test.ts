import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { GENERATED, settingsCatalogue, withTable } from '../../scripts/docs-tables.js'
import { ERROR_CODES, type ErrorCode, isRetryable } from '../../src/errors/codes.js'

/**
 * docs/ cannot go stale: the generated tables are what `npm run docs` would write, the code's
 * catalogues cover contract/runtime.md, and the hand-written pages name every request header of
 * the contract, every file of src/, every import rule and every package.
 */

const root = new URL('../../', import.meta.url)
const read = (path: string) => readFileSync(new URL(path, root), 'utf8')
const contract = read('contract/runtime.md')

/** The body of a `## heading` section: up to the next heading of the same level. */
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n')
  const from = lines.indexOf(`## ${heading}`)
  if (from < 0) throw new Error(`no "## ${heading}" section`)
  const to = lines.findIndex((line, i) => i > from && line.startsWith('## '))
  return lines.slice(from + 1, to < 0 ? undefined : to).join('\n')
}

/** The backticked names in the first cell of each row of the section's tables. */
function firstCellNames(text: string, name: RegExp): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
    .flatMap((line) => line.split('|')[1]?.match(new RegExp(`\`(${name.source})\``, 'g')) ?? [])
    .map((quoted) => quoted.slice(1, -1))
}

/** The text between a page's `marker` comments. */
function generatedPart(page: string, marker: string): string {
  const text = read(page)
  const start = text.indexOf(`<!-- ${marker}:start -->`)
  const end = text.indexOf(`<!-- ${marker}:end -->`)
  expect(start, `${page} has its ${marker} markers`).toBeGreaterThanOrEqual(0)
  expect(end).toBeGreaterThan(start)
  return text.slice(start + `<!-- ${marker}:start -->`.length, end)
}

/** The rows of one contiguous markdown table (no line inside it that is not a row). */
function tableRows(part: string): string[][] {
  const lines = part.trim().split('\n')
  for (const line of lines) expect(line, 'a table line').toMatch(/^\|.*\|$/)
  const [, separator, ...rows] = lines
  expect(separator).toMatch(/^\|( --- \|)+$/)
  return rows.map((row) => row.split(/(?<!\\)\|/).slice(1, -1))
}

describe('the generated tables (run `npm run docs` when this fails)', () => {
  it.each(GENERATED)('$page is what npm run docs writes', ({ page, marker, render }) => {
    const text = read(page)
    expect(text).toBe(withTable(text, marker, render()))
  })

  it('docs/configuration.md: one contiguous table, a row per setting in the code', () => {
    const rows = tableRows(generatedPart('docs/configuration.md', 'settings'))
    expect(rows.map((cells) => cells[0]?.trim())).toEqual(
      settingsCatalogue().map((s) => `\`${s.name}\``),
    )
    expect(rows.every((cells) => cells.length === 3)).toBe(true)
  })

  it('docs/errors.md: one contiguous table, a row per code of ERROR_CODES', () => {
    const rows = tableRows(generatedPart('docs/errors.md', 'error-codes'))
    expect(rows.map((cells) => cells[0]?.trim())).toEqual(
      Object.keys(ERROR_CODES).map((code) => `\`${code}\``),
    )
    expect(rows.map((cells) => cells[1]?.trim())).toEqual(
      Object.keys(ERROR_CODES).map((code) => (isRetryable(code as ErrorCode) ? 'yes' : 'no')),
    )
    expect(rows.every((cells) => cells.length === 3)).toBe(true)
  })
})

describe('the code covers contract/runtime.md', () => {
  const contractSettings = firstCellNames(
    section(contract, 'Settings (environment variables)'),
    /[A-Z][A-Z0-9_]+/,
  )
  const catalogue = new Set(settingsCatalogue().map((s) => s.name))

  it('has every setting of the contract', () => {
    expect(contractSettings).toContain('PORT')
    expect(contractSettings).toContain('SUBGRAPH')
    expect(contractSettings.filter((name) => !catalogue.has(name))).toEqual([])
  })

  it('has every error code of the contract in ERROR_CODES', () => {
    const codes = firstCellNames(section(contract, 'Errors'), /[A-Z][A-Z_]+/)
    expect(codes).toContain('BAD_USER_INPUT')
    expect(codes).toContain('PERSISTED_QUERY_ONLY')
    expect(codes.filter((code) => !(code in ERROR_CODES))).toEqual([])
  })

  it('docs/configuration.md names every request header the contract says the gateway reads', () => {
    const headersOf = (text: string) =>
      [...text.matchAll(/^- `([A-Za-z-]+)/gm)].map((match) => match[1])
    const contractHeaders = headersOf(section(contract, 'Request headers the gateway reads'))
    expect(contractHeaders).toEqual(
      expect.arrayContaining(['Authorization', 'Accept-Language', 'X-Request-Id', 'traceparent']),
    )
    const documented = headersOf(section(read('docs/configuration.md'), 'Request headers'))
    expect(contractHeaders.filter((header) => !documented.includes(header))).toEqual([])
  })
})

describe('docs/architecture.md', () => {
  const architecture = read('docs/architecture.md')

  it('has a line for every file of src/ in its layout tree, and none for a file that is not there', () => {
    const tree = section(architecture, 'Layout').split('```')[1] ?? ''
    const dirs: string[] = []
    const listed: string[] = []
    for (const line of tree.split('\n').filter((l) => l.trim() !== '')) {
      const depth = (line.length - line.trimStart().length) / 2
      const name = line.trim().split(/\s+/)[0] ?? ''
      dirs.length = depth
      if (name.endsWith('/')) dirs.push(name)
      else listed.push(dirs.join('') + name)
    }
    const files = readdirSync(new URL('src/', root), { recursive: true, encoding: 'utf8' })
      .filter((path) => statSync(new URL(`src/${path}`, root)).isFile())
      .map((path) => `src/${path}`)
    expect(listed.sort()).toEqual(files.sort())
  })

  it('explains every import rule of .dependency-cruiser.cjs', () => {
    const rules = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as {
      forbidden: { name: string }[]
    }
    const explained = [...section(architecture, 'Import rules').matchAll(/^- `([a-z-]+)`:/gm)].map(
      (match) => match[1],
    )
    expect(explained).toEqual(rules.forbidden.map((rule) => rule.name))
  })

  it('says why of every package in package.json, and of none that is not there', () => {
    const pkg = JSON.parse(read('package.json')) as Record<string, Record<string, string>>
    const packages = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })
    const explained = firstCellNames(
      section(architecture, 'Dependencies and why'),
      /@?[a-z][\w./-]*/,
    )
    expect(explained.sort()).toEqual(packages.sort())
  })
})
