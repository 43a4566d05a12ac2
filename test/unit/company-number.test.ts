import { describe, expect, it } from 'vitest'
import {
  luhnCheckDigit,
  luhnValid,
  normaliseCompanyNumber,
} from '../../src/domain/company-number.js'

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
