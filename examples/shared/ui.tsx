import { useEffect, useState } from 'react'

/** A GatewayError as both kits give it (clients/*\/gateway-answers.ts). */
interface ShownError {
  code: string
  message: string
  retryable: boolean
  retryAfterSeconds?: number
  path?: readonly (string | number)[]
  requestId?: string
}

/** The errors a UI shows: code, whether trying again can help, and the request id to quote. */
export function Errors({ errors }: { errors: readonly ShownError[] }) {
  return (
    <div role="alert">
      {errors.map((error) => (
        <p key={`${error.code}:${error.path?.join('.')}:${error.message}`}>
          <code>{error.code}</code> {error.message}
          {error.retryable ? ' (try again' : ' (will not change'}
          {error.retryAfterSeconds !== undefined && ` in ${error.retryAfterSeconds} s`})
          {error.requestId && <small> request {error.requestId}</small>}
        </p>
      ))}
    </div>
  )
}

/** The request id of the page's answer, and a notice when some of it came stale from the cache. */
export function AnswerInfo({ info }: { info: { requestId?: string; stale: boolean } | null }) {
  return (
    <footer>
      {info?.stale && (
        <p role="status">Some of this page is from the cache: the source is failing.</p>
      )}
      <small>request {info?.requestId}</small>
    </footer>
  )
}

/** `#/`, `#/list/<listId>`, `#/company/<country>/<number>`, split at the slashes. */
export function useRoute() {
  const [hash, setHash] = useState(location.hash)
  useEffect(() => {
    const update = () => setHash(location.hash)
    addEventListener('hashchange', update)
    return () => removeEventListener('hashchange', update)
  }, [])
  return hash.replace(/^#\/?/, '').split('/')
}

/** The gateway's URL: the one line an app adds to the kit (here from ?gateway=, for the tests). */
export const gatewayUrl =
  new URLSearchParams(location.search).get('gateway') ?? 'http://localhost:4000/graphql'
