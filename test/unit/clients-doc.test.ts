import { readFileSync } from 'node:fs'
import { buildSchema, isScalarType, isSpecifiedScalarType } from 'graphql'
import { describe, expect, it } from 'vitest'
import codegen from '../../codegen.js'

/**
 * docs/clients.md cannot drift from the kits and the configs: it names everything each kit
 * exports, and its scalar mappings are those of the repository's own codegen.ts and
 * relay-compiler config, for every custom scalar of schema.graphql.
 */

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
const page = read('docs/clients.md')

const customScalars = Object.values(buildSchema(read('schema.graphql')).getTypeMap())
  .filter((type) => isScalarType(type) && !isSpecifiedScalarType(type))
  .map((type) => type.name)
const codegenScalars = (codegen.generates['test/gql/'] as { config: { scalars: object } }).config
  .scalars as Record<string, string>
const relayConfig = read('test/relay/relay.config.json')
const relayScalars = JSON.parse(relayConfig).customScalarTypes as Record<string, string>

describe('docs/clients.md', () => {
  it.each(['clients/relay', 'clients/apollo'])('names every export of %s/index.ts', (kit) => {
    const exported = [...read(`${kit}/index.ts`).matchAll(/(?:type )?(\w+)(?:,|\n)/g)]
      .map((match) => match[1] ?? '')
      .filter((name) => /^[a-zA-Z]/.test(name) && !['export', 'from', 'type'].includes(name))
    expect(exported.length).toBeGreaterThan(5)
    const unnamed = exported.filter((name) => !page.includes(name))
    expect(unnamed).toEqual([])
  })

  it('maps every custom scalar of schema.graphql as codegen.ts and relay.config.json do', () => {
    expect(customScalars).toContain('DateTime')
    const rows = page
      .split('\n')
      .filter((line) => /^\| `[A-Za-z]+` \|/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()))
      .map(([, scalar, , generator, relay]) => [scalar, generator, relay])
    expect(rows).toEqual(
      customScalars.map((name) => [
        `\`${name}\``,
        `\`${codegenScalars[name]}\``,
        `\`${relayScalars[name]}\``,
      ]),
    )
  })

  it("shows the settings as the repository's own configs write them", () => {
    const lines = (text: string, pattern: RegExp) =>
      text.split('\n').filter((line) => pattern.test(line))
    const codegenLines = lines(read('codegen.ts'), /^\s+(scalars|strictScalars):/)
    const relayLines = lines(relayConfig, /"(customScalarTypes|requireCustomScalarTypes)"/)
    expect(codegenLines).toHaveLength(2)
    expect(relayLines).toHaveLength(2)
    expect(page).toContain(`\`\`\`ts\n${codegenLines.join('\n')}\n\`\`\``)
    expect(page).toContain(`\`\`\`json\n${relayLines.join('\n').replace(/,?$/, '')}\n\`\`\``)
  })

  it("is in the README's map of the documentation", () => {
    expect(read('README.md')).toContain('[docs/clients.md](docs/clients.md)')
  })
})
