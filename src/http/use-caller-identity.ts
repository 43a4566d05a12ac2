import { randomUUID } from 'node:crypto'
import { isIPv6 } from 'node:net'
import type { Plugin } from 'graphql-yoga'
import { LRUCache } from 'lru-cache'
import { bearerToken, type CallerId } from '../context.js'
import { httpError } from '../errors/graphql-errors.js'
import { isWarmUp } from '../operation/warm-up.js'
import { CredentialRefused, type Verify } from './caller-identity.js'
import { KeysUnavailable } from './issuer-keys.js'

/** Tokens the upstream accepted, kept: far more than callers at once, about a megabyte. */
const ACCEPTED_TOKENS = 10_000

// Who is calling, as a keyed hash: the verified caller; else its own token once the upstream
// accepted it, so a made-up one buys no share of its own; else its address.
export function callers(settings: {
  verify: Verify | undefined
  /** UPSTREAM_TOKEN is set: the caller's bearer string is not sent upstream, nor trusted. */
  serviceToken: boolean
  hash(parts: readonly string[], length?: number): string
  tokenKey(token: string): string
}) {
  const { verify, serviceToken, hash, tokenKey } = settings
  const verified = new WeakMap<Request, string>()
  const ids = new WeakMap<Request, string>()
  const accepted = new LRUCache<string, true>({ max: ACCEPTED_TOKENS })
  const hashed = new LRUCache<string, string>({ max: ACCEPTED_TOKENS })
  const identityOf = (request: Request, address: string | undefined) => {
    const caller = verified.get(request)
    if (caller !== undefined) return `verified ${caller}`
    const token = serviceToken ? undefined : bearerToken(request.headers.get('authorization'))
    const key = token === undefined ? undefined : tokenKey(token)
    if (key !== undefined && accepted.get(key)) return `token ${key}`
    // No address: called through yoga.fetch, not over a socket (tests); each request its own.
    return `address ${address === undefined ? randomUUID() : addressShare(address)}`
  }
  const idOf: CallerId = (request, address) => {
    let id = ids.get(request)
    if (id === undefined) {
      const identity = identityOf(request, address)
      id = hashed.get(identity) ?? hash(['caller', identity], 12)
      hashed.set(identity, id)
      ids.set(request, id)
    }
    return id
  }
  return {
    plugin: verify && useCallerIdentity(verify, verified),
    idOf,
    tokenAccepted: (key: string) => {
      accepted.set(key, true)
    },
  }
}

// Verifies each GraphQL request's credential before its body is parsed: missing or refused is
// 401 with `WWW-Authenticate` (RFC 6750), the issuer's keys out of reach 503.
function useCallerIdentity(verify: Verify, verified: WeakMap<Request, string>): Plugin {
  return {
    async onRequestParse({ request, serverContext }) {
      if (isWarmUp(serverContext)) return
      const credential = bearerToken(request.headers.get('authorization'))
      if (credential === undefined) {
        throw httpError(
          'UNAUTHENTICATED',
          401,
          'A credential is needed: send `Authorization: Bearer <API key or JWT>`.',
          { 'www-authenticate': 'Bearer' },
        )
      }
      try {
        verified.set(request, await verify(credential))
      } catch (error) {
        if (error instanceof CredentialRefused) {
          throw httpError('UNAUTHENTICATED', 401, `The bearer credential ${error.message}.`, {
            'www-authenticate': 'Bearer error="invalid_token"',
          })
        }
        // Logged where the fetch failed (src/http/issuer-keys.ts), once per fetch.
        if (error instanceof KeysUnavailable) {
          throw httpError(
            'AUTH_UNAVAILABLE',
            503,
            "The token could not be checked: the issuer's keys are out of reach. Try again later.",
          )
        }
        throw error
      }
    },
  }
}

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
