/**
 * The demo's REST resources by the names DEMO_FAULTS gives them, and what each entry of that
 * setting does: `<resource>:<fault>` becomes a Fault on the resource's path.
 */

/**
 * Each resource of contract/upstream-rest-api.md: its path (the captures are its ids), the path
 * as the document writes it, and what of the GraphQL API reads it.
 */
export const RESOURCES = {
  lists: { path: /^\/v1\/lists$/, rest: '/v1/lists', reads: '`lists`' },
  list: {
    path: /^\/v1\/lists\/([^/]+)$/,
    rest: '/v1/lists/{listId}',
    reads: '`list`, `node`/`nodes` of a List',
  },
  members: {
    path: /^\/v1\/lists\/([^/]+)\/companies$/,
    rest: '/v1/lists/{listId}/companies',
    reads: '`List.companies`',
  },
  listContacts: {
    path: /^\/v1\/lists\/([^/]+)\/contacts$/,
    rest: '/v1/lists/{listId}/contacts',
    reads: '`List.contacts`',
  },
  financials: {
    path: /^\/v1\/companies\/([^/]+)\/([^/]+)\/financials$/,
    rest: '/v1/companies/{country}/{number}/financials',
    reads:
      '`Company.financials`; `Company.name` and `place` when nothing else of the company is read',
  },
  lookalikes: {
    path: /^\/v1\/companies\/([^/]+)\/([^/]+)\/lookalikes$/,
    rest: '/v1/companies/{country}/{number}/lookalikes',
    reads: '`Company.lookalikes`',
  },
  relationships: {
    path: /^\/v1\/companies\/([^/]+)\/([^/]+)\/relationships$/,
    rest: '/v1/companies/{country}/{number}/relationships',
    reads: '`Company.shareholders`, `Company.participations`',
  },
  contacts: {
    path: /^\/v1\/companies\/([^/]+)\/([^/]+)\/contacts$/,
    rest: '/v1/companies/{country}/{number}/contacts',
    reads: '`Company.contacts`',
  },
} as const satisfies Record<string, { path: RegExp; rest: string; reads: string }>

export type Resource = keyof typeof RESOURCES

/** A fault applied to the requests whose path matches, `times` times (default: until cleared). */
export interface Fault {
  path: string | RegExp
  times?: number
  /** Share of the matching requests it applies to, drawn from a seeded sequence (default 1). */
  rate?: number
  /** Wait before sending the status line and headers. */
  delayMs?: number
  /** Never answer: the request stays open until the caller gives up (or the demo stops). */
  unanswered?: boolean
  /** Answer with this status (and a small JSON error body) instead of the real answer. */
  status?: number
  retryAfter?: string
  /** Extra response headers, e.g. `Cache-Control` (the REST document shows none). */
  headers?: Record<string, string>
  /** Replace the body with exactly this text (malformed JSON, an oversized body …). */
  body?: string
  /** Change the real JSON answer before sending it (to break the documented shape). */
  transform?: (json: unknown) => unknown
  /** Send the headers, then wait this long before the body. */
  bodyDelayMs?: number
  /** Send the headers and half the body, then reset the connection. */
  resetMidBody?: boolean
}

/** Longest delay a setting may ask for: Node's timers cannot wait longer than about 24 days. */
export const MAX_DELAY_MS = 600_000

/** The Retry-After a `429` fault sends unless it gives its own (the gateway's deadline is 10 s by
 *  default: a longer wait is reported at once, not waited out). */
export const DEFAULT_RETRY_AFTER_S = 30
/** Longest Retry-After a fault may give. */
const MAX_RETRY_AFTER_S = MAX_DELAY_MS / 1000

/** What each fault of DEMO_FAULTS does, as the documentation lists them. */
export const FAULT_KINDS = {
  '<status>': `answers that HTTP status (400–599) with a small JSON error body; \`429\` with \`Retry-After: ${DEFAULT_RETRY_AFTER_S}\``,
  '<status>:<s>': `the same with \`Retry-After: <s>\` (seconds, at most ${MAX_RETRY_AFTER_S})`,
  timeout:
    'never answers: the request stays open until the gateway gives up (`UPSTREAM_TIMEOUT_MS`, 10 s by default)',
  badbody: 'answers 200 with a body that is not JSON',
  'slow:<ms>': `answers normally, that many milliseconds later (at most ${MAX_DELAY_MS})`,
} as const

/** What `kind` does, or why it is not a fault. */
function faultOf(kind: string): Omit<Fault, 'path'> | string {
  if (kind === 'timeout') return { unanswered: true }
  if (kind === 'badbody') return { status: 200, body: 'this is not JSON' }
  const slow = /^slow:(\d+)$/.exec(kind)
  if (slow && Number(slow[1]) <= MAX_DELAY_MS) return { delayMs: Number(slow[1]) }
  const status = /^([45]\d\d)(?::(\d+))?$/.exec(kind)
  const retryAfter =
    status?.[2] ?? (status?.[1] === '429' ? String(DEFAULT_RETRY_AFTER_S) : undefined)
  if (status && Number(retryAfter ?? 0) <= MAX_RETRY_AFTER_S) {
    return { status: Number(status[1]), ...(retryAfter === undefined ? {} : { retryAfter }) }
  }
  return `\`${kind}\` is not a fault: an HTTP status 400–599 (with :<s>, a Retry-After of at most ${MAX_RETRY_AFTER_S} s), timeout, badbody or slow:<ms> (ms at most ${MAX_DELAY_MS})`
}

/** The faults of a DEMO_FAULTS list, or why it is not one. */
export function parseFaultList(text: string): Fault[] | string {
  const faults: Fault[] = []
  const seen = new Set<string>()
  const entries = text.split(',').map((part) => part.trim())
  for (const entry of entries.filter((part) => part !== '')) {
    const colon = entry.indexOf(':')
    const resource = entry.slice(0, colon < 0 ? undefined : colon)
    if (!Object.hasOwn(RESOURCES, resource)) {
      return `\`${resource}\` is not a resource: one of ${Object.keys(RESOURCES).join(', ')} (as in financials:503)`
    }
    if (seen.has(resource)) return `${resource} has two faults: give each resource one`
    seen.add(resource)
    const fault = faultOf(colon < 0 ? '' : entry.slice(colon + 1))
    if (typeof fault === 'string') return `${resource}: ${fault}`
    faults.push({ path: RESOURCES[resource as Resource].path, ...fault })
  }
  return faults
}
