import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import {
  buildSchema,
  type GraphQLField,
  type GraphQLNamedType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  printSchema,
} from 'graphql'
import { describe, expect, it } from 'vitest'
import { schema } from '../src/schema/index.js'

const root = new URL('../', import.meta.url)
const ownTypes = Object.values(schema.getTypeMap()).filter((type) => !type.name.startsWith('__'))

function fieldsOf(type: GraphQLNamedType): GraphQLField<unknown, unknown>[] {
  return isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()) : []
}

describe('schema.graphql and generated code', () => {
  it('schema.graphql is what the builder prints (run `npm run schema`)', async () => {
    const committed = await readFile(new URL('schema.graphql', root), 'utf8')
    expect(committed).toBe(`${printSchema(schema)}\n`)
  })

  it('the typed documents in test/gql are what codegen.ts generates (run `npm run codegen`)', async () => {
    // The CLI's own --check: it generates in memory and lists the files that would change.
    const run = promisify(execFile)(
      fileURLToPath(new URL('node_modules/.bin/graphql-codegen', root)),
      ['--config', 'codegen.ts', '--check'],
      { cwd: root },
    )
    await expect(run).resolves.toBeDefined()
  })
})

describe('documentation', () => {
  it('describes every type, field and argument', () => {
    const missing: string[] = []
    for (const type of ownTypes) {
      if (!['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name) && !type.description) {
        missing.push(type.name)
      }
      for (const field of fieldsOf(type)) {
        if (!field.description) missing.push(`${type.name}.${field.name}`)
        for (const arg of field.args) {
          if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`)
        }
      }
      if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description) missing.push(`${type.name}.${field.name}`)
        }
      }
    }
    expect(missing).toEqual([])
  })
})

describe('the contract (../shared/contract/api-surface.graphql)', async () => {
  const contractFile = new URL('../shared/contract/api-surface.graphql', root)
  const contract = buildSchema(await readFile(contractFile, 'utf8'))

  it('every contract field the schema has keeps its type, arguments and nullability', () => {
    const differences: string[] = []
    for (const contractType of Object.values(contract.getTypeMap())) {
      const ours = schema.getType(contractType.name)
      if (contractType.name.startsWith('__') || !ours) continue
      const ourFields = isObjectType(ours) || isInterfaceType(ours) ? ours.getFields() : {}
      for (const field of fieldsOf(contractType)) {
        const mine = ourFields[field.name]
        if (!mine) continue
        if (String(mine.type) !== String(field.type)) {
          differences.push(
            `${contractType.name}.${field.name}: ${mine.type} instead of ${field.type}`,
          )
        }
        for (const arg of field.args) {
          const myArg = mine.args.find((a) => a.name === arg.name)
          if (
            String(myArg?.type) !== String(arg.type) ||
            myArg?.defaultValue !== arg.defaultValue
          ) {
            differences.push(`${contractType.name}.${field.name}(${arg.name})`)
          }
        }
      }
    }
    expect(differences).toEqual([])
  })
})
