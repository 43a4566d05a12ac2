import { readdirSync, readFileSync } from 'node:fs'
import { buildSchema, isInterfaceType, isObjectType } from 'graphql'
import { describe, expect, it } from 'vitest'
import { possibleTypes, typePolicies } from '../../clients/apollo/type-policies.js'
import { gatewayError, responseInfo } from '../../clients/relay/gateway-answers.js'

/**
 * The client kits stand alone (each folder copied is enough), share one reading of the
 * gateway's answers, and the Apollo kit's cache knows every connection and interface of
 * schema.graphql.
 */

const root = new URL('../../', import.meta.url)
const read = (path: string) => readFileSync(new URL(path, root), 'utf8')
const kits = ['clients/relay', 'clients/apollo']
const schema = buildSchema(read('schema.graphql'))
const PAGING = ['first', 'after', 'last', 'before']

describe('the client kits', () => {
  it('carry the same gateway-answers.ts, so each folder is complete alone', () => {
    expect(read('clients/apollo/gateway-answers.ts')).toBe(read('clients/relay/gateway-answers.ts'))
  })

  it.each(kits)('%s imports nothing outside its folder but packages', (kit) => {
    const files = readdirSync(new URL(`${kit}/`, root)).filter((f) => /\.(ts|mjs)$/.test(f))
    const outside = files.flatMap((file) =>
      [...read(`${kit}/${file}`).matchAll(/from '(\.[^']*)'/g)]
        .map((match) => match[1] ?? '')
        .filter((path) => !path.startsWith('./') || path.includes('/', 2))
        .map((path) => `${file}: ${path}`),
    )
    expect(files.length).toBeGreaterThan(3)
    expect(outside).toEqual([])
  })
})

describe('the Apollo kit’s cache', () => {
  const connections = Object.values(schema.getTypeMap())
    .filter(isObjectType)
    .filter((type) => !type.name.startsWith('__'))
    .flatMap((type) =>
      Object.values(type.getFields())
        .filter((field) => String(field.type).replace(/!$/, '').endsWith('Connection'))
        .map((field) => ({
          type: type.name,
          field: field.name,
          keyArgs: field.args
            .map((a) => a.name)
            .filter((name) => !PAGING.includes(name))
            .sort(),
        })),
    )

  it('pages every connection of schema.graphql, keyed by its arguments but the paging ones', () => {
    expect(connections.length).toBeGreaterThanOrEqual(6)
    const policies = Object.entries(typePolicies).flatMap(([type, policy]) =>
      Object.entries(policy.fields ?? {}).map(([field, fieldPolicy]) => {
        const { keyArgs } = fieldPolicy as { keyArgs?: string[] | false }
        return { type, field, keyArgs: [...(keyArgs || [])].sort() }
      }),
    )
    const sort = (list: { type: string; field: string }[]) =>
      [...list].sort((a, b) => `${a.type}.${a.field}`.localeCompare(`${b.type}.${b.field}`))
    expect(sort(policies)).toEqual(sort(connections))
  })

  it('knows the types of every interface (fragments on Node)', () => {
    const interfaces = Object.values(schema.getTypeMap()).filter(isInterfaceType)
    expect(possibleTypes).toEqual(
      Object.fromEntries(
        interfaces.map((i) => [
          i.name,
          schema
            .getPossibleTypes(i)
            .map((t) => t.name)
            .sort(),
        ]),
      ),
    )
  })
})

describe('gateway-answers.ts', () => {
  it('reads a coded error, its wait and path, and the request id the kit wrote in extensions', () => {
    expect(
      gatewayError({
        message: 'GET /v1/lists/{id}: the upstream answered 429',
        path: ['list'],
        extensions: {
          code: 'RATE_LIMITED',
          retryable: true,
          retryAfterSeconds: 30,
          requestId: 'r-1',
        },
      }),
    ).toEqual({
      message: 'GET /v1/lists/{id}: the upstream answered 429',
      code: 'RATE_LIMITED',
      retryable: true,
      retryAfterSeconds: 30,
      path: ['list'],
      requestId: 'r-1',
    })
    // Relay keeps no message of a field error: the code stands in for it.
    expect(gatewayError({ extensions: { code: 'NOT_FOUND', retryable: false } })).toEqual({
      message: 'NOT_FOUND',
      code: 'NOT_FOUND',
      retryable: false,
    })
  })

  it('keeps the stale flag of any part of an answer in parts', () => {
    const first = responseInfo('r-2', { cache: { stale: true, staleReads: 2 } })
    expect(responseInfo('r-2', undefined, first)).toEqual({
      requestId: 'r-2',
      stale: true,
      staleReads: 2,
    })
    expect(responseInfo(undefined, {})).toEqual({ stale: false, staleReads: 0 })
  })
})
