import { createHmac } from 'node:crypto'
import { LRUCache } from 'lru-cache'

/**
 * The hashes made lately: the same token, company or person is hashed on every request and
 * upstream call, and a map lookup costs a fraction of an HMAC. Keyed by the exact input (the
 * values are in this process's memory while requests use them anyway), bounded.
 */
const made = new LRUCache<string, string>({ max: 10_000 })

/**
 * HMAC-SHA256 of the parts with the gateway's secret (GATEWAY_SECRET), URL-safe base64, cut to
 * `length` characters: a stable tag for a value that must not be readable from it (a person's
 * name in a Contact ID). Parts are NUL-separated, so ["ab", "c"] and ["a", "bc"] differ.
 */
export function keyedHash(secret: string, parts: readonly string[], length = 22): string {
  const input = parts.join('\0')
  const key = `${length}\0${secret}\0${input}`
  let hash = made.get(key)
  if (hash === undefined) {
    hash = createHmac('sha256', secret).update(input).digest('base64url').slice(0, length)
    made.set(key, hash)
  }
  return hash
}
