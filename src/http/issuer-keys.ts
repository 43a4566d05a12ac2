import { createRemoteJWKSet, errors, type JWTVerifyGetKey } from 'jose'

const MAX_AGE_MS = 10 * 60_000
const COOLDOWN_MS = 30_000

export class KeysUnavailable extends Error {}

// The issuer's key set (AUTH_JWKS_URL), kept through its outages (jose would fail tokens then):
// refetched in the background once old, and for an unknown `kid` at most once per cooldown.
export function issuerKeys(url: URL, onFetchFailed: (error: unknown) => void): JWTVerifyGetKey {
  const keySet = createRemoteJWKSet(url, {
    cacheMaxAge: Number.POSITIVE_INFINITY,
    cooldownDuration: Number.POSITIVE_INFINITY,
  })
  let fetchedAt: number | undefined
  let triedAt = Number.NEGATIVE_INFINITY
  let failed = false
  let fetching: Promise<boolean> | undefined
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
      if (!(await fetchNow())) throw unavailable()
    } else if (Date.now() >= fetchedAt + MAX_AGE_MS) void fetchNow()
    try {
      return await keySet(header, token)
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error
      const fetched = fetchNow()
      if (fetched && (await fetched)) return keySet(header, token)
      if (failed) throw unavailable()
      throw error
    }
  }
}
