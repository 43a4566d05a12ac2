import type { Plugin } from 'graphql-yoga'

/** `/ready`: 200 when `ready()` says so, else 503; yoga's tried a URLPattern on every request. */
export function useReadiness(ready: () => boolean | Promise<boolean>): Plugin {
  return {
    onRequest({ url, endResponse, fetchAPI }) {
      if (url.pathname !== '/ready') return
      const answer = (ok: boolean) =>
        endResponse(new fetchAPI.Response(null, { status: ok ? 200 : 503 }))
      return Promise.resolve()
        .then(ready)
        .then(answer, () => answer(false))
    },
  }
}
