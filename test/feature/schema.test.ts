import { readFile } from 'node:fs/promises'
import {
  buildClientSchema,
  buildSchema,
  type GraphQLField,
  type GraphQLNamedType,
  getIntrospectionQuery,
  type IntrospectionQuery,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isNonNullType,
  isObjectType,
  isSpecifiedDirective,
  lexicographicSortSchema,
  printSchema,
} from 'graphql'
import { describe, expect, it } from 'vitest'
import { printServedSchema } from '../../src/http/use-served-schema.js'
import { schema } from '../../src/schema/index.js'
import { root } from '../support/process.js'
import { startStack } from '../support/stack.js'

const ownTypes = Object.values(schema.getTypeMap()).filter((type) => !type.name.startsWith('__'))

function fieldsOf(type: GraphQLNamedType): GraphQLField<unknown, unknown>[] {
  return isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()) : []
}

describe('schema.graphql', async () => {
  const stack = await startStack()
  const committed = await readFile(new URL('schema.graphql', root), 'utf8')

  it('schema.graphql is the schema the gateway serves, applied directives included (run `npm run schema`)', () => {
    expect(committed).toBe(printServedSchema(stack.gateway.yoga.getEnveloped({}).schema))
  })

  it('schema.graphql describes what introspection over HTTP answers: types, fields, directives', async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    })
    const { status, body } = await stack.post(query)
    expect([status, body.errors]).toEqual([200, undefined])
    const served = buildClientSchema(body.data as unknown as IntrospectionQuery)
    // Sorted: an introspection answer lists types in an order of its own.
    const print = (s: typeof served) => printSchema(lexicographicSortSchema(s))
    expect(print(buildSchema(committed))).toBe(print(served))
    expect(['defer', 'stream'].map((name) => served.getDirective(name)?.name)).toEqual([
      'defer',
      'stream',
    ])
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

describe('the contract (contract/api-surface.graphql)', async () => {
  const contractFile = new URL('contract/api-surface.graphql', root)
  const contract = buildSchema(await readFile(contractFile, 'utf8'))

  it('the schema has every contract type and field, with the same types, arguments and nullability', () => {
    const differences: string[] = []
    for (const contractType of Object.values(contract.getTypeMap())) {
      if (contractType.name.startsWith('__')) continue
      const ours = schema.getType(contractType.name)
      if (!ours || ours.constructor !== contractType.constructor) {
        differences.push(`${contractType.name}: missing or of another kind`)
        continue
      }
      const ourFields = isObjectType(ours) || isInterfaceType(ours) ? ours.getFields() : {}
      if (isObjectType(contractType) && isObjectType(ours)) {
        for (const iface of contractType.getInterfaces()) {
          if (!ours.getInterfaces().some((i) => i.name === iface.name)) {
            differences.push(`${contractType.name}: does not implement ${iface.name}`)
          }
        }
      }
      if (isEnumType(contractType) && isEnumType(ours)) {
        const values = ours.getValues().map((v) => v.name)
        for (const value of contractType.getValues()) {
          if (!values.includes(value.name)) differences.push(`${contractType.name}.${value.name}`)
        }
      }
      for (const field of fieldsOf(contractType)) {
        const mine = ourFields[field.name]
        if (!mine) {
          differences.push(`${contractType.name}.${field.name}: missing`)
          continue
        }
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
        // Added arguments must be optional, or existing client queries would break.
        for (const myArg of mine.args) {
          if (!field.args.some((a) => a.name === myArg.name) && isNonNullType(myArg.type)) {
            differences.push(
              `${contractType.name}.${field.name}(${myArg.name}): new required argument`,
            )
          }
        }
      }
    }
    expect(differences).toEqual([])
  })

  it('schema.graphql defines the contract’s directives and applies them where the contract does', async () => {
    const printed = buildSchema(await readFile(new URL('schema.graphql', root), 'utf8'))
    const applied = (s: typeof contract) =>
      Object.values(s.getTypeMap())
        .filter((type) => !type.name.startsWith('__'))
        .flatMap((type) =>
          fieldsOf(type).flatMap((field) =>
            (field.astNode?.directives ?? []).map(
              (d) =>
                `${type.name}.${field.name} @${d.name.value}${d.arguments?.length ? '(…)' : ''}`,
            ),
          ),
        )
        .sort()
    const definition = (s: typeof contract, name: string) => {
      const directive = s.getDirective(name)
      return directive && [String(directive), directive.locations, directive.args.map(String)]
    }
    const contractDirectives = contract.getDirectives().filter((d) => !isSpecifiedDirective(d))
    expect(contractDirectives.map((d) => d.name)).toEqual(['semanticNonNull'])
    for (const { name } of contractDirectives) {
      expect(definition(printed, name)).toEqual(definition(contract, name))
    }
    expect(applied(printed)).toEqual(applied(contract))
    expect(applied(contract)).toHaveLength(8)
  })
})
