import { describe, expect, it } from 'vitest'
import {
  luhnCheckDigit,
  luhnValid,
  normaliseCompanyNumber,
} from '../../src/domain/company-number.js'
import { graphql } from '../gql/index.js'
import { startStack } from '../support/stack.js'

/** Company numbers: normalised as people paste them, checked per country before any call. */

describe('normaliseCompanyNumber', () => {
  it.each([
    ['BE', '0922178703', '0922178703'],
    ['BE', '0922.178.703', '0922178703'],
    ['BE', 'BE 0922 178 703', '0922178703'],
    ['BE', 'be0922-178-703', '0922178703'],
    ['BE', '922178703', '0922178703'],
    ['BE', '922.178.703', '0922178703'],
    ['NL', '28292991', '28292991'],
    ['NL', 'NL 2829 2991', '28292991'],
    ['FR', '566 925 608', '566925608'],
    ['FR', 'FR566925608', '566925608'],
  ] as const)('%s %s → %s', (country, input, number) => {
    expect(normaliseCompanyNumber(country, input)).toEqual({ ok: true, number })
  })

  it.each([
    ['BE', '0922178704', 'mod-97'],
    ['BE', '09221787', '10 digits'],
    ['BE', '09221787030', '10 digits'],
    ['NL', '2829299', '8 digits'],
    ['NL', '282929911', '8 digits'],
    ['FR', '566925609', 'Luhn'],
    ['FR', '56692560', '9 digits'],
    ['BE', 'FR0922178703', 'prefix FR does not match country BE'],
    ['NL', '2829A991', 'digits only'],
    ['FR', '', 'digits only'],
  ] as const)('%s %s is refused: %s', (country, input, rule) => {
    const check = normaliseCompanyNumber(country, input)
    expect(check.ok).toBe(false)
    expect(check.ok ? '' : check.reason).toContain(rule)
  })

  it('completes and checks Luhn numbers', () => {
    expect(luhnCheckDigit('56692560')).toBe('8')
    expect(luhnValid('566925608')).toBe(true)
    expect(luhnValid('566925680')).toBe(false)
  })
})

describe('company(country, number)', async () => {
  const stack = await startStack({ upstreamToken: 'demo-token' })
  const Company = graphql(`
    query CompanyByNumber($country: Country!, $number: String!) {
      company(country: $country, number: $number) { number name }
    }
  `)

  it('finds the company whatever way its number is written', async () => {
    const result = await stack.execute(Company, { country: 'BE', number: '922.178.703' })
    expect(result.data?.company).toEqual({ number: '0922178703', name: 'Brasserie Claes SA' })
  })

  it.each([
    [
      'BE',
      '0922 178 704',
      /Invalid company number "0922 178 704": a Belgian enterprise number fails its mod-97 check/,
    ],
    ['NL', '1234567', /a Dutch KVK number has 8 digits/],
    ['FR', '566925609', /a French SIREN fails its Luhn check/],
  ] as const)(
    '%s %s → BAD_USER_INPUT naming the rule, no upstream call',
    async (country, number, message) => {
      const result = await stack.execute(Company, { country, number })
      expect(result.data).toEqual({ company: null })
      expect(result.errors?.[0]?.message).toMatch(message)
      expect(result.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', argument: 'number' })
      expect(stack.demo.calls()).toEqual([])
    },
  )
})
