import { createHash } from 'node:crypto'
import { errors, jwtVerify } from 'jose'
import { z } from 'zod'
import { type Config, ConfigError } from '../config.js'
import type { Logger } from '../observability/logger.js'
import { issuerKeys, KeysUnavailable } from './issuer-keys.js'
import { readJsonSetting } from './json-setting.js'

// A caller's bearer credential verified: an API key of AUTH_API_KEYS_FILE, a JWT of AUTH_JWKS_URL.
// Only with UPSTREAM_TOKEN: else callers' keys or JWTs would go upstream, which verifies them.

/** The credential is missing, malformed, unknown, expired or not for this gateway: HTTP 401. */
export class CredentialRefused extends Error {}

/** A credential's verified caller, as `key <name>` or `jwt <sub>`; throws CredentialRefused. */
export type Verify = (credential: string) => Promise<string>

/** Far above any real JWT (a few KiB) or API key: anything longer is refused unread. */
const MAX_CREDENTIAL_LENGTH = 8192

type Settings = Pick<Config, 'upstreamToken' | 'authApiKeysFile' | 'authJwt'>

/** The verifier the settings ask for; none without AUTH_API_KEYS_FILE and AUTH_JWKS_URL. */
export function credentialVerifier(settings: Settings, logger?: Logger): Verify | undefined {
  const { authApiKeysFile, authJwt } = settings
  if (!authApiKeysFile && !authJwt) return undefined
  if (settings.upstreamToken === undefined) {
    const name = authApiKeysFile ? 'AUTH_API_KEYS_FILE' : 'AUTH_JWKS_URL'
    throw new ConfigError(
      `Invalid setting ${name}: needs UPSTREAM_TOKEN (without it the caller's own token goes upstream and the upstream verifies it)`,
    )
  }
  const keys = authApiKeysFile
    ? readJsonSetting('AUTH_API_KEYS_FILE', authApiKeysFile, apiKeysSchema)
    : undefined
  const jwt = authJwt ? jwtVerifier(authJwt, logger) : undefined
  return async (credential) => {
    if (credential.length > MAX_CREDENTIAL_LENGTH) throw new CredentialRefused('is too long')
    // A lookup by the key's hash: no comparison of secrets whose time could tell how much matched.
    const name = keys?.get(sha256(credential))
    if (name !== undefined) return `key ${name}`
    if (jwt) return `jwt ${await jwt(credential)}`
    throw new CredentialRefused('is not a known API key')
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** `{ "<caller name>": "<SHA-256 hex of the key>" }`, each hash of one name only; names by hash. */
const apiKeysSchema = z
  .record(
    z.string().min(1, 'a caller name is empty'),
    z
      .string({ error: 'a key hash must be a string' })
      .regex(/^[0-9a-fA-F]{64}$/, 'a key hash must be 64 hex digits (SHA-256)')
      .transform((hash) => hash.toLowerCase()),
    { error: 'must be a JSON object of "<caller name>": "<SHA-256 hex of the key>"' },
  )
  .refine((keys) => Object.keys(keys).length > 0, 'holds no keys')
  .refine(
    (keys) => new Set(Object.values(keys)).size === Object.keys(keys).length,
    'two callers have the same key',
  )
  .transform((keys) => new Map(Object.entries(keys).map(([name, hash]) => [hash, name])))

/** A JWT's `sub` once jose checked it: RS256/ES256 only (no `none`, no HMAC on a public key). */
function jwtVerifier(
  { jwksUrl, issuer, audience }: NonNullable<Settings['authJwt']>,
  logger: Logger | undefined,
) {
  const key = issuerKeys(new URL(jwksUrl), (error) =>
    logger?.warn(
      { cause: (error as Error).message },
      'AUTH_JWKS_URL: the key set could not be fetched',
    ),
  )
  return async (token: string): Promise<string> => {
    let subject: unknown
    try {
      const { payload } = await jwtVerify(token, key, {
        issuer,
        audience,
        algorithms: ['RS256', 'ES256'],
        requiredClaims: ['sub', 'exp'],
        clockTolerance: 30,
      })
      subject = payload.sub
    } catch (error) {
      if (error instanceof KeysUnavailable) throw error
      if (error instanceof errors.JWTExpired) throw new CredentialRefused('has expired')
      if (error instanceof errors.JWTClaimValidationFailed) {
        throw new CredentialRefused(`has a "${error.claim}" claim this gateway does not accept`)
      }
      if (error instanceof errors.JOSEError) throw new CredentialRefused('is not a valid JWT')
      throw error
    }
    // jose checks that `sub` is there, not what it is.
    if (typeof subject !== 'string' || subject === '') {
      throw new CredentialRefused('has a "sub" claim this gateway does not accept')
    }
    return subject
  }
}
