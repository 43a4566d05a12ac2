/** Company numbers of the three countries the upstream covers: how they are written, normalised
 *  and checked, to refuse a wrong one before any upstream call (and for the demo's data). */
export const COUNTRIES = ['BE', 'NL', 'FR'] as const
export type Country = (typeof COUNTRIES)[number]

export type NumberCheck = { ok: true; number: string } | { ok: false; reason: string }

/** BE enterprise (KBO) number: the last two digits are 97 minus the first eight modulo 97. */
export function belgianCheckDigits(firstEight: string): string {
  return String(97 - (Number(firstEight) % 97)).padStart(2, '0')
}

/** Luhn check over all digits, as used by the French SIREN. */
export function luhnValid(digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return sum % 10 === 0
}

/** The digit that makes `digits + d` pass the Luhn check. */
export function luhnCheckDigit(digits: string): string {
  for (let d = 0; d <= 9; d++) {
    if (luhnValid(`${digits}${d}`)) return String(d)
  }
  throw new Error('unreachable: some digit always completes a Luhn sum')
}

/**
 * Strips what people paste along with a number (spaces, dots, dashes, the country prefix of a
 * VAT number) and checks the rest against the country's rule.
 */
export function normaliseCompanyNumber(country: Country, input: string): NumberCheck {
  let number = input.replace(/[\s.\-/]/g, '').toUpperCase()
  const prefix = /^[A-Z]{2}/.exec(number)?.[0]
  if (prefix !== undefined) {
    if (prefix !== country) {
      return { ok: false, reason: `the prefix ${prefix} does not match country ${country}` }
    }
    number = number.slice(2)
  }
  if (!/^\d+$/.test(number)) {
    return {
      ok: false,
      reason:
        'a company number holds digits only (after spaces, dots and the country prefix are removed)',
    }
  }
  switch (country) {
    case 'BE': {
      // Numbers issued before 2023 may still be written with 9 digits; they gain a leading 0.
      if (number.length === 9) number = `0${number}`
      if (number.length !== 10) {
        return { ok: false, reason: 'a Belgian enterprise number has 10 digits' }
      }
      if (belgianCheckDigits(number.slice(0, 8)) !== number.slice(8)) {
        return { ok: false, reason: 'a Belgian enterprise number fails its mod-97 check' }
      }
      return { ok: true, number }
    }
    case 'NL':
      return number.length === 8
        ? { ok: true, number }
        : { ok: false, reason: 'a Dutch KVK number has 8 digits' }
    case 'FR':
      if (number.length !== 9) return { ok: false, reason: 'a French SIREN has 9 digits' }
      return luhnValid(number)
        ? { ok: true, number }
        : { ok: false, reason: 'a French SIREN fails its Luhn check' }
  }
}
