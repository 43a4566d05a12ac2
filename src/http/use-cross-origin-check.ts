import type { Plugin } from 'graphql-yoga'
import { httpError } from '../errors/graphql-errors.js'

/**
 * Refuses, before its body is read, a GraphQL request a browser sent for a page of an origin that
 * may not call (CORS_ORIGINS): HTTP 403 ORIGIN_NOT_ALLOWED. CORS only keeps the answer from such a
 * page; a "simple" request (a GET, a form POST) is sent without a preflight, and would make the
 * gateway spend its upstream token all the same. As Go's net/http CrossOriginProtection: the
 * browser's `Sec-Fetch-Site` (which a page cannot set) says whether the page is of another origin,
 * so same-origin GraphiQL passes whatever proxies stand in front; a browser that sends none is
 * judged by its `Origin` against the host it called. A request with neither (curl, a server) is no
 * browser's and passes. Not @graphql-yoga/plugin-csrf-prevention or Apollo's CSRF prevention: they
 * require a custom header on every GET without a JSON Content-Type, which plain clients lack.
 */
export function useCrossOriginCheck(allowed: (origin: string | null) => boolean): Plugin {
  return {
    onRequestParse({ request }) {
      const origin = request.headers.get('origin')
      if (!fromOtherOrigin(request, origin) || allowed(origin)) return
      // The Origin header is not repeated: no caller input is echoed.
      throw httpError(
        'ORIGIN_NOT_ALLOWED',
        403,
        'Pages of this origin may not call this gateway (CORS_ORIGINS).',
      )
    },
  }
}

/** Whether a browser sent the request for a page of another origin. */
function fromOtherOrigin(request: Request, origin: string | null): boolean {
  const site = request.headers.get('sec-fetch-site')
  // `same-origin`, or `none`: the user opened the URL.
  if (site !== null) return site === 'cross-site' || site === 'same-site'
  if (origin === null) return false
  let host: string
  try {
    host = new URL(origin).host
  } catch {
    return true
  }
  return !hostsCalled(request).includes(host)
}

/**
 * The host the browser called: the request's own, or where a reverse proxy rewrote it, the one
 * the proxy says it was called by. A page cannot set these headers on a request sent without a
 * preflight, and a preflighted one is CORS's to judge.
 */
function hostsCalled(request: Request): string[] {
  const { headers } = request
  const forwarded = [
    ...(headers.get('forwarded') ?? '').matchAll(/(?:^|[;,\s])host="?([^";,\s]+)/gi),
  ]
  return [
    new URL(request.url).host,
    ...(headers.get('x-forwarded-host') ?? '').split(','),
    ...forwarded.map((match) => match[1] ?? ''),
  ].map((host) => host.trim().toLowerCase())
}
