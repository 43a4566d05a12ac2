import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { ADMIN_PATH, answerAdmin } from './admin.js'
import {
  type DemoCompany,
  type DemoContact,
  DemoData,
  type DemoList,
  type DemoListBody,
  identifierOf,
} from './data.js'
import { type Fault, RESOURCES } from './faults.js'
import { Random } from './random.js'
import { type FaultSettings, faultsOf, NO_FAULTS } from './settings.js'

/**
 * The embedded demo upstream: a real HTTP server on loopback implementing the whole REST
 * interface of contract/upstream-rest-api.md over the demo data set. The gateway talks to it
 * exactly as to production. Its fault settings (DEMO_FAULTS, DEMO_FAULT_RATE, DEMO_LATENCY_MS)
 * come from the environment and from /_demo/faults (admin.ts). Tests use its hooks to inject
 * latency and faults, to hold answers back (hold, waitForCalls), to move its clock (volatile
 * contactIds follow it) and to read the calls it received, in the order it received and
 * answered them (seq, answeredSeq).
 */

export const DEMO_TOKEN = 'demo-token'
const MAX_LIMIT = 500
const FAULT_SEED = 20

export interface DemoUpstreamOptions {
  /** Port on `host`; 0 (the default) takes a free one. */
  port?: number
  /** Interface to bind; default 127.0.0.1 (0.0.0.0 to serve other containers). */
  host?: string
  /** Bearer tokens accepted; default just DEMO_TOKEN. */
  tokens?: readonly string[]
  /** Header that selects the language (NL, FR, EN); default Accept-Language. */
  languageHeader?: string
  /** The data set; one is generated when absent. */
  data?: DemoData
  /** The demo's clock (ms since the epoch), which volatile contactIds follow; default Date.now. */
  now?: () => number
  /** Serve /_demo/faults (DEMO_ADMIN); default: only when `host` is a loopback address. */
  admin?: boolean
}

/** One request the demo received, as tests read it. */
export interface ReceivedCall {
  /** Place in the demo's event log; receipts and answers draw from one counter. */
  seq: number
  /** When it was received (ms since the epoch, the real clock): rate tests read the spacing. */
  at: number
  /** Place in the event log at which the answer was sent; absent until then (and if never). */
  answeredSeq?: number
  /** Status of the answer sent. */
  status?: number
  /** The connection closed before the answer was sent in full (the caller gave up on it). */
  abandoned?: boolean
  method: string
  path: string
  query: Record<string, string>
  /** The bearer token sent, if any. */
  token: string | undefined
  language: string | undefined
  /** The X-Request-Id and W3C traceparent sent, if any: tests follow a request through. */
  requestId: string | undefined
  traceparent: string | undefined
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

type Query = URLSearchParams
type Route = (match: string[], query: Query, language: Language) => unknown
type Language = 'NL' | 'FR' | 'EN'

interface Hold {
  path: string | RegExp
  released: Promise<void>
  release(): void
}

interface Waiter {
  predicate: (calls: ReceivedCall[]) => boolean
  resolve(): void
  reject(error: unknown): void
}

export class DemoUpstream {
  readonly data: DemoData
  private readonly server: Server
  private readonly tokens: Set<string>
  private readonly languageHeader: string
  private readonly received: ReceivedCall[] = []
  private faults: (Fault & { used: number })[] = []
  /** Which requests a fault with a `rate` hits: the same ones on every run from a reset. */
  private faultDraws = new Random(FAULT_SEED)
  private settings = NO_FAULTS
  private readonly holds = new Set<Hold>()
  private waiters: Waiter[] = []
  private seq = 0
  private readonly clock: () => number
  private readonly routes: [RegExp, Route][]
  /** Added before every answer, to model a remote service. */
  latencyMs = 0
  /** Added to the clock: tests move the demo's time with it (or advanceClock); reset() zeroes it. */
  clockOffsetMs = 0
  /** Most requests being answered at once since the last reset. */
  peakInFlight = 0
  private inFlight = 0
  url = ''

  constructor(private readonly options: DemoUpstreamOptions = {}) {
    this.data = options.data ?? new DemoData()
    this.tokens = new Set(options.tokens ?? [DEMO_TOKEN])
    this.languageHeader = (options.languageHeader ?? 'accept-language').toLowerCase()
    this.clock = options.now ?? Date.now
    this.server = createServer((req, res) => void this.handle(req, res))
    this.server.keepAliveTimeout = 60_000
    this.routes = [
      [RESOURCES.lists.path, (_, q) => this.listOverview(q)],
      [RESOURCES.list.path, ([id]) => ({ data: [this.listOf(id)].map(listBody) })],
      [RESOURCES.members.path, ([id], q) => this.listCompanies(id, q)],
      [RESOURCES.listContacts.path, ([id], q, lang) => this.listContacts(id, q, lang)],
      [RESOURCES.financials.path, (m, q) => this.financials(m, q)],
      [RESOURCES.lookalikes.path, (m) => this.lookalikes(m)],
      [RESOURCES.relationships.path, (m) => this.relationships(m)],
      [RESOURCES.contacts.path, (m, q, lang) => this.companyContacts(m, q, lang)],
    ]
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', resolve)
    })
    const { port } = this.server.address() as AddressInfo
    const host = this.options.host ?? '127.0.0.1'
    this.url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
    return this.url
  }

  async stop(): Promise<void> {
    this.releaseAll()
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  /** Calls received since the last reset, oldest first (copies: later answers do not show). */
  calls(): ReceivedCall[] {
    return this.received.map((call) => ({ ...call }))
  }

  inject(fault: Fault): void {
    this.faults.push({ ...fault, used: 0 })
  }

  /**
   * Applies fault settings (DEMO_FAULTS, DEMO_FAULT_RATE, DEMO_LATENCY_MS) in place of every
   * fault and the latency; the rate's draws start again from their seed.
   */
  configure(settings: FaultSettings): void {
    this.settings = settings
    this.faults = faultsOf(settings).map((fault) => ({ ...fault, used: 0 }))
    this.faultDraws = new Random(FAULT_SEED)
    this.latencyMs = settings.DEMO_LATENCY_MS
  }

  /** The fault settings last applied, as /_demo/faults shows them. */
  get faultSettings(): FaultSettings {
    return this.settings
  }

  /** Where /_demo/faults is served, once started; undefined when it is not. */
  get adminUrl(): string | undefined {
    return this.url !== '' && this.adminEnabled() ? `${this.url}${ADMIN_PATH}` : undefined
  }

  private adminEnabled(): boolean {
    const host = this.options.host ?? '127.0.0.1'
    return this.options.admin ?? (host === 'localhost' || host === '::1' || /^127\./.test(host))
  }

  /** The demo's time: its clock plus clockOffsetMs. */
  now(): number {
    return this.clock() + this.clockOffsetMs
  }

  /** Moves the demo's time forward (or back, with a negative amount). */
  advanceClock(ms: number): void {
    this.clockOffsetMs += ms
  }

  /**
   * Holds the requests whose path matches (a string matches exactly), from now until release():
   * they are received and show in calls() at once, but answered (normally) only after release().
   */
  hold(path: string | RegExp): { release(): void } {
    let open = () => {}
    const released = new Promise<void>((resolve) => {
      open = resolve
    })
    const hold: Hold = {
      path,
      released,
      release: () => {
        this.holds.delete(hold)
        open()
      },
    }
    this.holds.add(hold)
    return { release: hold.release }
  }

  /**
   * Resolves as soon as the calls received (with their answers so far) satisfy the predicate,
   * checked on every receipt and answer; rejects if the predicate throws. No timeout of its own.
   */
  waitForCalls(predicate: (calls: ReceivedCall[]) => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiters.push({ predicate, resolve, reject })
      this.notify()
    })
  }

  /** Forget calls and faults, remove latency, release held requests and reset the clock. */
  reset(): void {
    this.received.length = 0
    this.configure(NO_FAULTS)
    this.peakInFlight = 0
    this.clockOffsetMs = 0
    this.releaseAll()
    this.notify()
  }

  private releaseAll() {
    for (const hold of [...this.holds]) hold.release()
  }

  /** Settles the waiters whose predicate the calls now satisfy. */
  private notify() {
    if (this.waiters.length === 0) return
    const calls = this.calls()
    this.waiters = this.waiters.filter((waiter) => {
      try {
        if (!waiter.predicate(calls)) return true
        waiter.resolve()
      } catch (error) {
        waiter.reject(error)
      }
      return false
    })
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    if (req.url?.startsWith('/_demo/')) return answerAdmin(req, res, this, this.adminEnabled())
    this.inFlight++
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight)
    const url = new URL(req.url ?? '/', 'http://demo')
    const call = this.receive(req, url)
    res.once('close', () => {
      this.inFlight--
      if (call.answeredSeq === undefined) {
        call.abandoned = true
        this.notify()
      }
    })
    this.notify()
    const fault = this.faultFor(url.pathname)
    const holds = [...this.holds].filter((hold) => matches(hold.path, url.pathname))
    if (holds.length > 0) await Promise.all(holds.map((hold) => hold.released))
    if (fault?.unanswered) {
      if (!res.destroyed) await new Promise((resolve) => res.once('close', resolve))
      return
    }
    const delay = this.latencyMs + (fault?.delayMs ?? 0)
    if (delay > 0) await sleep(delay)
    if (res.destroyed) return

    const { status, body, headers } = this.answer(call, url, fault)
    res.writeHead(status, headers)
    if (fault?.resetMidBody) {
      res.write(body.slice(0, Math.floor(body.length / 2)))
      setTimeout(() => res.socket?.resetAndDestroy(), 5)
      return
    }
    if (fault?.bodyDelayMs !== undefined) {
      res.flushHeaders()
      await sleep(fault.bodyDelayMs)
      if (res.destroyed) return
    }
    res.end(body)
    call.answeredSeq = ++this.seq
    call.status = status
    this.notify()
  }

  /** Records the request as a call tests can read. */
  private receive(req: IncomingMessage, url: URL): ReceivedCall {
    const auth = req.headers.authorization
    const languageValue = req.headers[this.languageHeader]
    const call: ReceivedCall = {
      seq: ++this.seq,
      at: Date.now(),
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      token: auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined,
      language: Array.isArray(languageValue) ? languageValue[0] : languageValue,
      requestId: header(req, 'x-request-id'),
      traceparent: header(req, 'traceparent'),
    }
    this.received.push(call)
    return call
  }

  /** The status, body and headers of the answer to `call`, as `fault` changes them. */
  private answer(call: ReceivedCall, url: URL, fault: Fault | undefined) {
    let status = 200
    let payload: unknown
    try {
      if (call.method !== 'GET') throw new HttpError(405, 'only GET is supported')
      if (call.token === undefined || !this.tokens.has(call.token)) {
        throw new HttpError(401, 'a valid bearer token is required')
      }
      payload = this.route(url, parseLanguage(call.language))
    } catch (error) {
      if (!(error instanceof HttpError)) throw error
      status = error.status
      payload = { error: { status, message: error.message } }
    }
    if (fault?.status !== undefined) {
      status = fault.status
      payload = { error: { status, message: 'injected fault' } }
    }
    // A copy: the answer shares objects with the data set, which must stay as it is.
    if (fault?.transform !== undefined) payload = fault.transform(structuredClone(payload))
    const body = fault?.body ?? JSON.stringify(payload)
    const headers: Record<string, string> = {
      ...fault?.headers,
      'content-type': 'application/json',
    }
    if (fault?.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter
    return { status, body, headers }
  }

  private faultFor(path: string) {
    const fault = this.faults.find(
      (f) =>
        matches(f.path, path) &&
        (f.times === undefined || f.used < f.times) &&
        (f.rate === undefined || this.faultDraws.chance(f.rate)),
    )
    if (fault) fault.used++
    return fault
  }

  private route(url: URL, language: Language): unknown {
    for (const [pattern, route] of this.routes) {
      const match = pattern.exec(url.pathname)
      if (match) return route(match.slice(1).map(decodeURIComponent), url.searchParams, language)
    }
    throw new HttpError(404, 'no such resource')
  }

  private listOverview(query: Query) {
    const type = oneOf(query, 'type', ['STATIC', 'SMART', 'OVERVIEW'], 'OVERVIEW')
    const lists = this.data.lists.filter((list) => type === 'OVERVIEW' || list.type === type)
    return paged(lists.map(listBody), query)
  }

  private listOf(id: string | undefined) {
    const list = /^\d+$/.test(id ?? '') ? this.data.list(Number(id)) : undefined
    if (!list) throw new HttpError(404, 'no such list')
    return list
  }

  private listCompanies(id: string | undefined, query: Query) {
    const list = this.listOf(id)
    const view = oneOf(query, 'type', ['SAVED', 'ARCHIVED', 'NEW', 'ALL'], 'ALL')
    // The view filters SMART lists only; a STATIC list has no views.
    const members =
      list.type === 'SMART' && view !== 'ALL'
        ? list.members.filter((m) => m.status === view)
        : list.members
    return paged(
      members.map((m) => ({ identifier: identifierOf(m.company), matchedSince: m.matchedSince })),
      query,
    )
  }

  private listContacts(id: string | undefined, query: Query, language: Language) {
    const list = this.listOf(id)
    const now = this.now()
    return paged(
      list.contacts.map(({ contact, company }) => ({
        ...this.contactBody(contact, language, now),
        company: identifierOf(company),
      })),
      query,
    )
  }

  private companyOf([country, number]: string[]): DemoCompany {
    if (!['BE', 'NL', 'FR'].includes(country ?? '')) {
      throw new HttpError(400, 'countryCode must be one of BE, NL, FR')
    }
    const company = this.data.company(country ?? '', number ?? '')
    if (!company) throw new HttpError(404, 'no such company')
    return company
  }

  private financials(match: string[], query: Query) {
    const company = this.companyOf(match)
    return { identifier: identifierOf(company), ...paged(this.data.financialsOf(company), query) }
  }

  private lookalikes(match: string[]) {
    const company = this.companyOf(match)
    return {
      identifier: identifierOf(company),
      data: this.data.lookalikesOf(company).map(({ company: other, score }) => ({
        companyId: { country: other.country, companyNumber: other.companyNumber },
        score,
      })),
    }
  }

  private relationships(match: string[]) {
    const company = this.companyOf(match)
    return { identifier: identifierOf(company), data: this.data.relationshipsOf(company) }
  }

  private companyContacts(match: string[], query: Query, language: Language) {
    const company = this.companyOf(match)
    const q = query.get('q')?.toLowerCase()
    const onlyOfficial = boolean(query, 'onlyOfficialRoles')
    const seniorities = csv(query, 'seniorities')
    const departments = csv(query, 'departments')
    const roles = csv(query, 'officialRoles')
    const now = this.now()
    const contacts = this.data
      .contactsOf(company)
      .filter(
        (c) =>
          (!q ||
            (c.firstNameUnknown
              ? [c.lastName, c.position.title[language]]
              : [
                  c.firstName,
                  c.lastName,
                  `${c.firstName} ${c.lastName}`,
                  c.position.title[language],
                ]
            ).some((text) => text.toLowerCase().includes(q))) &&
          (!onlyOfficial || c.officialRoles.length > 0) &&
          (!seniorities || seniorities.includes(c.position.seniority)) &&
          (!departments || departments.includes(c.position.department)) &&
          (!roles || c.officialRoles.some((role) => roles.includes(role))),
      )
    return {
      identifier: identifierOf(company),
      ...paged(
        contacts.map((c) => this.contactBody(c, language, now)),
        query,
        4,
      ),
    }
  }

  /** A contact as sent at `now`: company and list contacts agree at any one time. */
  private contactBody(contact: DemoContact, language: Language, now: number) {
    return {
      jobTitle: contact.position.title[language],
      identifier: {
        contactId: this.data.contactIdAt(contact, now),
        firstName: contact.firstNameUnknown ? null : contact.firstName,
        lastName: contact.lastName,
      },
    }
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

function matches(pattern: string | RegExp, path: string): boolean {
  return typeof pattern === 'string' ? pattern === path : pattern.test(path)
}

function listBody({ members: _members, contacts: _contacts, ...list }: DemoList): DemoListBody {
  return list
}

function parseLanguage(value: string | undefined): Language {
  const upper = value?.trim().toUpperCase()
  return upper === 'NL' || upper === 'FR' ? upper : 'EN'
}

function integer(query: Query, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER) {
  const raw = query.get(name)
  if (raw === null) return fallback
  if (!/^\d+$/.test(raw)) throw new HttpError(400, `${name} must be a non-negative integer`)
  const value = Number(raw)
  if (value > max) throw new HttpError(400, `${name} must be at most ${max}`)
  return value
}

function paged<T>(items: readonly T[], query: Query, defaultLimit = 20) {
  const limit = integer(query, 'limit', defaultLimit, MAX_LIMIT)
  const offset = integer(query, 'offset', 0)
  return {
    data: items.slice(offset, offset + limit),
    pagination: { limit, offset, total: items.length },
  }
}

function oneOf<T extends string>(
  query: Query,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = query.get(name)
  if (raw === null) return fallback
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new HttpError(400, `${name} must be one of ${allowed.join(', ')}`)
  }
  return raw as T
}

function boolean(query: Query, name: string): boolean {
  return oneOf(query, name, ['true', 'false'], 'false') === 'true'
}

function csv(query: Query, name: string): string[] | undefined {
  const raw = query.get(name)
  return raw === null || raw === '' ? undefined : raw.split(',')
}
