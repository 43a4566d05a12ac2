import { readFile } from 'node:fs/promises'
import { generate } from '@graphql-codegen/cli'
import { buildSchema, isObjectType } from 'graphql'
import { describe, expect, it } from 'vitest'
import { root } from '../support/process.js'
import { serve } from '../support/serve.js'
import { startStack } from '../support/stack.js'

/**
 * GET /graphql/schema.graphql (contract/runtime.md): schema.graphql over HTTP, byte for byte, so
 * that code generators pointed at a running gateway see the uses of @semanticNonNull, which an
 * introspection answer cannot carry.
 */

const stack = await startStack()
const { url } = await serve(stack.gateway.yoga)
const schemaUrl = `${url}/graphql/schema.graphql`
const committed = await readFile(new URL('schema.graphql', root), 'utf8')

/** `Type.field` of every field definition that applies @semanticNonNull. */
const semanticNonNull = (sdl: string) =>
  Object.values(buildSchema(sdl).getTypeMap()).flatMap((type) =>
    isObjectType(type) && !type.name.startsWith('__')
      ? Object.values(type.getFields())
          .filter((field) =>
            field.astNode?.directives?.some((d) => d.name.value === 'semanticNonNull'),
          )
          .map((field) => `${type.name}.${field.name}`)
      : [],
  )

describe('GET /graphql/schema.graphql', () => {
  it('answers schema.graphql byte for byte, as text/plain', async () => {
    const response = await fetch(schemaUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(await response.text()).toBe(committed)
  })

  it('carries every use of @semanticNonNull that the contract makes', async () => {
    const served = semanticNonNull(await (await fetch(schemaUrl)).text())
    const contract = await readFile(new URL('contract/api-surface.graphql', root), 'utf8')
    expect(served).toHaveLength(8)
    expect(served.sort()).toEqual(semanticNonNull(contract).sort())
  })

  it('answers HEAD without a body, and any other method 405 with Allow', async () => {
    const head = await fetch(schemaUrl, { method: 'HEAD' })
    expect([head.status, await head.text()]).toEqual([200, ''])
    const post = await fetch(schemaUrl, { method: 'POST', body: '{}' })
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD'])
    expect(stack.demo.calls()).toEqual([])
  })

  it('gives GraphQL Code Generator, pointed at the URL, the non-null types of errorHandlingClient', async () => {
    const document =
      'query Page { company(country: BE, number: "0403170701") { financials { totalCount } } }'
    const typesFrom = async (schema: string) => {
      const [file] = await generate(
        {
          schema,
          documents: document,
          silent: true,
          generates: {
            'out.ts': {
              plugins: ['typescript-operations'],
              config: { nullability: { errorHandlingClient: true } },
            },
          },
        },
        false,
      )
      return file?.content ?? ''
    }
    const fromUrl = await typesFrom(schemaUrl)
    expect(fromUrl).toMatch(
      /financials: \{ __typename\?: 'FinancialConnection', totalCount: number \}(?! \| null)/,
    )
    expect(fromUrl).toBe(await typesFrom('schema.graphql'))
  }, 60_000)
})
