import { isIPv6 } from 'node:net'

/** An unverified caller's IPv4 address, or its IPv6 /64: a host is commonly given a whole /64. */
export function addressShare(address: string): string {
  const plain = address.replace(/%.*$/, '')
  if (!isIPv6(plain)) return plain
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(plain)
  if (mapped?.[1]) return mapped[1]
  const [head = '', tail] = plain.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const zeros = tail === undefined ? 0 : 8 - left.length - right.length
  const groups = [...left, ...Array<string>(Math.max(0, zeros)).fill('0'), ...right]
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`
}
