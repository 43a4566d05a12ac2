import { createHmac } from 'node:crypto'

/**
 * HMAC-SHA256 of the parts with the gateway's secret (GATEWAY_SECRET), URL-safe base64, cut to
 * `length` characters: a stable tag for a value that must not be readable from it (a person's
 * name in a Contact ID). Parts are NUL-separated, so ["ab", "c"] and ["a", "bc"] differ.
 */
export function keyedHash(secret: string, parts: readonly string[], length = 22): string {
  return createHmac('sha256', secret).update(parts.join('\0')).digest('base64url').slice(0, length)
}
