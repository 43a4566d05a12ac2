import { describe, expect, it } from 'vitest'
import {
  CONTACTS,
  CONTACTS_DEFAULT_LIMIT,
  endpoints,
  FINANCIALS,
  LIST,
  LIST_COMPANIES,
  LIST_CONTACTS,
  LISTS,
  LOOKALIKES,
  MAX_LIMIT,
  RELATIONSHIPS,
  resource,
  resourceBodies,
  responseShape,
} from '../support/upstream-contract.js'

/**
 * test/support/upstream-contract.ts reads contract/upstream-rest-api.md: it must find every
 * resource and endpoint, with the fields and rules the demo upstream's tests check answers with.
 */

describe('the document, as this test reads it', () => {
  it('has every resource and endpoint, with the fields and rules the tests below use', () => {
    expect([...resourceBodies.keys()]).toEqual([
      'pagination',
      'company identifier',
      'list',
      'list company item',
      'list contact item',
      'company contact item',
      'financial record',
      'lookalike item',
      'relationship item',
    ])
    expect(endpoints.map((e) => e.path)).toEqual([
      LISTS,
      LIST,
      LIST_COMPANIES,
      LIST_CONTACTS,
      FINANCIALS,
      LOOKALIKES,
      RELATIONSHIPS,
      CONTACTS,
    ])
    expect(resource('company identifier')).toEqual({
      kind: 'object',
      fields: {
        country: { kind: 'string' },
        companyNumber: { kind: 'string' },
        name: { kind: 'string' },
        place: { kind: 'string' },
      },
    })
    const record = resource('financial record')
    const solvency = record.kind === 'object' ? record.fields.solvency : undefined
    expect(solvency?.kind === 'object' && Object.keys(solvency.fields)).toHaveLength(11)
    expect(solvency?.kind === 'object' && solvency.fields.capital).toEqual({
      kind: 'nullable',
      of: { kind: 'number' },
    })
    expect(responseShape(LIST)).toEqual({ kind: 'object', fields: { data: expect.anything() } })
    expect(responseShape(LOOKALIKES)).toMatchObject({ fields: { data: { kind: 'array' } } })
    expect(MAX_LIMIT).toBe(500)
    expect(CONTACTS_DEFAULT_LIMIT).toBe(4)
  })
})
