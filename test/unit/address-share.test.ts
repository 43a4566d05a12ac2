import { describe, expect, it } from 'vitest'
import { addressShare, callers } from '../../src/http/use-caller-identity.js'

/**
 * An unverified caller is told apart by its address: IPv4 whole, IPv6 by its /64, so that a host
 * holding a /64 (found by the hostile review of issue 21: 2^64 addresses, as many shares) is one
 * caller.
 */

describe('addressShare', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::198.51.100.1', '64:ff9b:0:0::/64'],
  ])('%s → %s', (address, share) => {
    expect(addressShare(address)).toBe(share)
  })
})

describe('callers told apart by address (UPSTREAM_TOKEN, no verification)', () => {
  const ids = callers({
    verify: undefined,
    serviceToken: true,
    hash: (parts) => parts.join('|'),
    tokenKey: (token) => `key ${token}`,
  })
  const idOf = (address: string) =>
    ids.idOf(
      new Request('http://gateway/graphql', { headers: { authorization: 'Bearer x' } }),
      address,
    )

  it('one /64 is one caller, whatever the address in it and the bearer string', () => {
    expect(idOf('2001:db8:1:2::1')).toBe(idOf('2001:db8:1:2:ffff:eeee:dddd:cccc'))
    expect(idOf('2001:db8:1:2::1')).not.toBe(idOf('2001:db8:1:3::1'))
    expect(idOf('203.0.113.7')).not.toBe(idOf('203.0.113.8'))
  })
})
