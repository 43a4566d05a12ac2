import { type Plugin, shouldRenderGraphiQL } from 'graphql-yoga'
import { errorResponse } from '../errors/graphql-errors.js'
import { INCREMENTAL_MEDIA_TYPES } from '../operation/use-admission.js'

/** Media types yoga answers in, in the order a wildcard admits them (as yoga does). */
const SERVED_MEDIA_TYPES = [
  'application/json',
  'application/graphql-response+json',
  ...INCREMENTAL_MEDIA_TYPES,
]

// An Accept header's ranges (absent or empty: anything). One that is not `type/subtype`, asks
// for a charset but UTF-8 (yoga's only one) or weighs outside 0..1 admits nothing.
function rangesOf(accept: string | null) {
  const ranges: { type: string; subtype: string; q: number }[] = []
  for (const part of (accept?.trim() || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [range = '', ...params] = part.split(';')
    const [type = '', subtype = '', ...rest] = range.split('/')
    if (!type || !subtype || rest.length > 0 || (type === '*' && subtype !== '*')) continue
    let q = 1
    let valid = true
    for (const [name, raw = ''] of params.map((p) => p.split('='))) {
      const value = raw.replace(/^"(.*)"$/, '$1')
      if (name === 'charset') valid &&= value === 'utf-8'
      if (name !== 'q') continue
      const weight = value === '' ? Number.NaN : Number(value)
      valid &&= weight >= 0 && weight <= 1
      q = Math.min(q, weight)
    }
    if (valid) ranges.push({ type, subtype, q })
  }
  return ranges
}

// The served types an Accept header admits, favourite first; a type weighs what its most
// specific range says (RFC 9110 §12.5.1), the lowest of equally specific ones.
function acceptedTypes(accept: string | null): string[] {
  const ranges = rangesOf(accept)
  const accepted: { type: string; q: number; at: number }[] = []
  for (const served of SERVED_MEDIA_TYPES) {
    const [type, subtype] = served.split('/')
    let best = { specificity: 0, q: 0, at: 0 }
    for (const [at, range] of ranges.entries()) {
      const specificity = specificityOf(range, type, subtype)
      if (specificity === 0 || specificity < best.specificity) continue
      best =
        specificity > best.specificity
          ? { specificity, q: range.q, at }
          : { specificity, q: Math.min(best.q, range.q), at: best.at }
    }
    if (best.q > 0) accepted.push({ type: served, q: best.q, at: best.at })
  }
  return accepted.sort((a, b) => b.q - a.q || a.at - b.at).map((a) => a.type)
}

/** 3: exactly, 2: by its type, 1: as a wildcard, 0: not. */
function specificityOf(
  range: { type: string; subtype: string },
  type: string | undefined,
  subtype: string | undefined,
) {
  if (range.type === '*') return 1
  if (range.type !== type) return 0
  if (range.subtype === '*') return 2
  return range.subtype === subtype ? 3 : 0
}

// 406 for an Accept the gateway cannot serve, before the upstream is paid (yoga finds out after
// execution). Else the header becomes the types it admits, favourite first: yoga ignores weights.
export function useAcceptCheck(graphqlEndpoint: string, graphiql: boolean): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== graphqlEndpoint || (graphiql && shouldRenderGraphiQL(request))) return
      const accepted = acceptedTypes(request.headers.get('accept'))
      if (accepted.length > 0) {
        request.headers.set('accept', accepted.join(', '))
        return
      }
      endResponse(
        errorResponse(
          fetchAPI.Response,
          406,
          'NOT_ACCEPTABLE',
          `Cannot answer in any type this Accept header allows; use one of ${SERVED_MEDIA_TYPES.join(', ')}.`,
          { accept: SERVED_MEDIA_TYPES.join(', ') },
        ),
      )
    },
  }
}
