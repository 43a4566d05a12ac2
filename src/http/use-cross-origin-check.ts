import type { Plugin } from 'graphql-yoga'
import { httpError } from '../errors/graphql-errors.js'

// 403 for a browser's request from a page of an origin CORS_ORIGINS does not allow (CORS only
// hides the answer), judged as Go's CrossOriginProtection does: yoga's CSRF check needs headers.
export function useCrossOriginCheck(allowed: (origin: string | null) => boolean): Plugin {
  return {
    onRequestParse({ request }) {
      const origin = request.headers.get('origin')
      if (!fromOtherOrigin(request, origin) || allowed(origin)) return
      throw httpError(
        'ORIGIN_NOT_ALLOWED',
        403,
        'Pages of this origin may not call this gateway (CORS_ORIGINS).',
      )
    },
  }
}

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

/** The host called, or the one a reverse proxy names: no page sets these without a preflight. */
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
