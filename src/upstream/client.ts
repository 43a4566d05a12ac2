import { setTimeout as sleep } from 'node:timers/promises'
import { type Dispatcher, Pool, errors as undiciErrors } from 'undici'
import type { z } from 'zod'
import type { Logger } from '../logger.js'
import { meaningOfStatus, parseRetryAfter, UpstreamError } from './errors.js'
import {
  DEFAULT_RETRY_POLICY,
  isRetryable,
  RetryBudget,
  type RetryPolicy,
  retryDelayMs,
} from './retry.js'

/** Language the upstream answers in, selected per caller. */
export type Language = 'NL' | 'FR' | 'EN'

/** Who a read is made for: never shared between callers. */
export interface Caller {
  /** The caller's own bearer token, used when the gateway has no service token. */
  token?: string | undefined
  language?: Language | undefined
}

/** How one GraphQL operation uses the upstream (interim: fairness and deadline to come). */
export interface ReadScope {
  caller: Caller
  fairnessKey: string
  signal: AbortSignal
  deadline: number
  spend(): boolean
}

export type QueryValue = string | number | boolean | readonly string[] | undefined

/** One REST endpoint: how its parameters become a request, and the shape of its answer. */
export interface Endpoint<P, T> {
  /** Method and path template, e.g. `GET /v1/lists/{id}`: names the endpoint in errors and logs. */
  readonly name: string
  readonly request: (params: P) => {
    path: readonly (string | number)[]
    query?: Record<string, QueryValue>
  }
  readonly response: z.ZodType<T>
}

export function defineEndpoint<P, S extends z.ZodType>(
  name: string,
  request: Endpoint<P, z.output<S>>['request'],
  response: S,
): Endpoint<P, z.output<S>> {
  return { name, request, response: response as z.ZodType<z.output<S>> }
}

/** A request ready to send; `key` identifies it for de-duplication (same key, same answer). */
export interface PreparedRequest<T = unknown> {
  readonly endpoint: Endpoint<unknown, T>
  readonly pathAndQuery: string
  readonly key: string
}

/**
 * Builds the path and a canonical query string: absent values dropped, keys sorted, list values
 * sorted and comma-joined, every path segment encoded.
 */
export function prepare<P, T>(endpoint: Endpoint<P, T>, params: P): PreparedRequest<T> {
  const { path, query = {} } = endpoint.request(params)
  const pathname = `/${path.map((segment) => encodeURIComponent(String(segment))).join('/')}`
  const search = new URLSearchParams()
  for (const name of Object.keys(query).sort()) {
    const value = query[name]
    // An empty list filters nothing: leave it out, like an absent one.
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue
    search.set(name, Array.isArray(value) ? [...value].sort().join(',') : String(value))
  }
  const qs = search.toString()
  const pathAndQuery = qs === '' ? pathname : `${pathname}?${qs}`
  return { endpoint: endpoint as Endpoint<unknown, T>, pathAndQuery, key: pathAndQuery }
}

export interface UpstreamClientOptions {
  /** The REST service's base URL; `/v1/...` paths are appended to it. */
  baseUrl: string
  /** Service token (UPSTREAM_TOKEN); when absent the caller's token is forwarded. */
  serviceToken?: string | undefined
  /** Name of the header that selects the response language. */
  languageHeader: string
  /** Budget for one request: connecting, headers and the whole body. */
  timeoutMs: number
  /** Concurrent upstream requests; more wait in the pool's queue. */
  maxConnections: number
  /** Largest response body accepted; larger is a bad response, not an out-of-memory. */
  maxResponseBytes: number
  /** Replaces the connection pool, e.g. with undici's MockAgent in unit tests. */
  dispatcher?: Dispatcher
  retry?: RetryPolicy
  logger?: Logger
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
])

/**
 * The only module that talks HTTP to the REST service: one keep-alive connection pool per
 * process, a deadline on every request, and every failure turned into an UpstreamError.
 * Knows nothing of GraphQL.
 */
export class UpstreamClient {
  private readonly dispatcher: Dispatcher
  private readonly origin: string
  private readonly basePath: string
  private readonly retryPolicy: RetryPolicy
  /** Shared by all callers: it protects the upstream, not one request. */
  private readonly budget = new RetryBudget()

  constructor(private readonly options: UpstreamClientOptions) {
    this.retryPolicy = options.retry ?? DEFAULT_RETRY_POLICY
    const base = new URL(options.baseUrl)
    this.origin = base.origin
    this.basePath = base.pathname.replace(/\/+$/, '')
    this.dispatcher =
      options.dispatcher ??
      new Pool(this.origin, {
        connections: options.maxConnections,
        connect: { timeout: options.timeoutMs },
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        maxResponseSize: options.maxResponseBytes,
      })
  }

  /**
   * Sends one GET and returns the body parsed by the endpoint's schema, retrying what is worth
   * retrying within one deadline of UPSTREAM_TIMEOUT_MS for all attempts. `attempts` counts the
   * HTTP requests made.
   */
  async send<T>(request: PreparedRequest<T>, scope: ReadScope): Promise<T> {
    const caller = scope.caller
    const { endpoint } = request
    const token = this.options.serviceToken ?? caller.token
    if (token === undefined) {
      throw new UpstreamError(
        'UNAUTHENTICATED',
        endpoint.name,
        'no bearer token: send an Authorization header or configure UPSTREAM_TOKEN',
      )
    }
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${token}`,
    }
    if (caller.language !== undefined) headers[this.options.languageHeader] = caller.language

    const deadline = AbortSignal.timeout(this.options.timeoutMs)
    const giveUpAt = Date.now() + this.options.timeoutMs
    this.budget.deposit()
    for (let retry = 0; ; retry++) {
      if (!scope.spend()) {
        throw new UpstreamError('QUERY_TOO_COSTLY', endpoint.name, 'budget spent')
      }
      try {
        return await this.attempt(request, headers, deadline)
      } catch (error) {
        const failure = error as UpstreamError
        if (retry >= this.retryPolicy.maxRetries || !isRetryable(failure)) throw failure
        const delay = retryDelayMs(this.retryPolicy, retry, failure)
        // A wait past the deadline would only end in a timeout: report what happened instead.
        if (Date.now() + delay >= giveUpAt || !this.budget.withdraw()) throw failure
        this.options.logger?.warn(
          {
            endpoint: endpoint.name,
            code: failure.code,
            status: failure.status,
            retry: retry + 1,
            delayMs: Math.round(delay),
          },
          'retrying upstream read',
        )
        await sleep(delay)
      }
    }
  }

  private async attempt<T>(
    request: PreparedRequest<T>,
    headers: Record<string, string>,
    deadline: AbortSignal,
  ): Promise<T> {
    const { endpoint } = request
    let text: string
    let status: number
    try {
      const response = await this.dispatcher.request({
        origin: this.origin,
        path: `${this.basePath}${request.pathAndQuery}`,
        method: 'GET',
        headers,
        signal: deadline,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      })
      status = response.statusCode
      if (status < 200 || status >= 300) {
        // Free the connection without reading an error body we would not show anyway.
        await response.body.dump()
        const retryAfter = response.headers['retry-after']
        const { code, message } = meaningOfStatus(status)
        throw new UpstreamError(code, endpoint.name, message, {
          status,
          retryAfterSeconds: parseRetryAfter(
            Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
          ),
        })
      }
      text = await response.body.text()
    } catch (error) {
      throw this.transportError(error, endpoint.name, deadline)
    }
    return parseBody(text, endpoint, status)
  }

  /** Whether the upstream answers HTTP at all (any status below 500), for readiness probes. */
  async reachable(): Promise<boolean> {
    try {
      const response = await this.dispatcher.request({
        origin: this.origin,
        path: `${this.basePath}/v1/lists?limit=1`,
        method: 'GET',
        headers: this.options.serviceToken
          ? { authorization: `Bearer ${this.options.serviceToken}` }
          : {},
        signal: AbortSignal.timeout(this.options.timeoutMs),
      })
      await response.body.dump()
      return response.statusCode < 500
    } catch {
      return false
    }
  }

  close(): Promise<void> {
    return this.dispatcher.close()
  }

  private transportError(error: unknown, name: string, deadline: AbortSignal): UpstreamError {
    if (error instanceof UpstreamError) return error
    const code = (error as { code?: string }).code
    if (deadline.aborted || (code !== undefined && TIMEOUT_CODES.has(code))) {
      return new UpstreamError(
        'UPSTREAM_TIMEOUT',
        name,
        `no complete answer within ${this.options.timeoutMs} ms`,
        { cause: error },
      )
    }
    if (error instanceof undiciErrors.ResponseExceededMaxSizeError) {
      return new UpstreamError('UPSTREAM_BAD_RESPONSE', name, 'response body is too large', {
        cause: error,
      })
    }
    const reason = code ?? (error instanceof Error ? error.message : 'unknown')
    return new UpstreamError('UPSTREAM_ERROR', name, `request failed (${reason})`, {
      cause: error,
    })
  }
}

/** JSON-parses and validates a 2xx body; the error names the offending path, never the body. */
function parseBody<T>(text: string, endpoint: Endpoint<unknown, T>, status: number): T {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new UpstreamError('UPSTREAM_BAD_RESPONSE', endpoint.name, 'response body is not JSON', {
      status,
    })
  }
  const parsed = endpoint.response.safeParse(json)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue === undefined || issue.path.length === 0 ? '(root)' : issue.path.join('.')
  throw new UpstreamError(
    'UPSTREAM_BAD_RESPONSE',
    endpoint.name,
    `response does not match the documented shape at ${where}: ${issue?.message ?? 'invalid'}`,
    { status },
  )
}
