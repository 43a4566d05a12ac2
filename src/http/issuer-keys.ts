import { createRemoteJWKSet, errors, type JWTVerifyGetKey } from 'jose'

/** Fetched again when this old, in the background; and for an unknown `kid`, after this long. */
const MAX_AGE_MS = 10 * 60_000
const COOLDOWN_MS = 30_000

/** The issuer's key set could not be fetched, so a token could not be checked. */
export class KeysUnavailable extends Error {}

/**
 * The issuer's key set (AUTH_JWKS_URL), kept through the issuer's outages. jose fetches it (one
 * fetch at a time, 5 s at most) and finds a token's key in it; when to fetch is decided here,
 * since jose would make each token wait for a refetch once its set is 10 minutes old, and fail
 * it when the issuer is down. Fetched on first use; again in the background once 10 minutes old,
 * the known keys answering meanwhile and kept when that fails; for a `kid` it does not hold, at
 * most once every 30 s (a rotated key is found; made-up `kid`s cannot hammer the issuer). No
 * fetch within 30 s of one that failed: while the issuer is out, tokens of known keys are
 * checked at once, and others are KeysUnavailable.
 */
export function issuerKeys(url: URL, onFetchFailed: (error: unknown) => void): JWTVerifyGetKey {
  // Never too old, never a fetch of jose's own once it holds a set: fetched when fetchNow says.
  const keySet = createRemoteJWKSet(url, {
    cacheMaxAge: Number.POSITIVE_INFINITY,
    cooldownDuration: Number.POSITIVE_INFINITY,
  })
  let fetchedAt: number | undefined
  let triedAt = Number.NEGATIVE_INFINITY
  let failed = false
  let fetching: Promise<boolean> | undefined
  /** The fetch under way, else a new one unless one was tried within 30 s; whether it succeeds. */
  const fetchNow = () => {
    if (fetching === undefined && Date.now() >= triedAt + COOLDOWN_MS) {
      triedAt = Date.now()
      fetching = keySet.reload().then(
        () => {
          fetchedAt = triedAt
          failed = false
          return true
        },
        (error: unknown) => {
          failed = true
          onFetchFailed(error)
          return false
        },
      )
      void fetching.finally(() => {
        fetching = undefined
      })
    }
    return fetching
  }
  const unavailable = () => new KeysUnavailable(`${url.href}: the key set could not be fetched`)
  return async (header, token) => {
    if (fetchedAt === undefined) {
      // Nothing to check against yet: this request waits for the set.
      if (!(await fetchNow())) throw unavailable()
    } else if (Date.now() >= fetchedAt + MAX_AGE_MS) void fetchNow()
    try {
      return await keySet(header, token)
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error
      // A key it does not hold: rotated in since, or made up.
      const fetched = fetchNow()
      if (fetched && (await fetched)) return keySet(header, token)
      if (failed) throw unavailable()
      throw error
    }
  }
}
