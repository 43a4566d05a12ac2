import { type Dispatcher, Pool, errors as undiciErrors } from 'undici'
import { cancelled, UpstreamError } from './errors.js'
import { statusError } from './response.js'

export interface SendOptions {
  /** The REST service's base URL; `/v1/...` paths are appended to it. */
  baseUrl: string
  /** Budget for one request: connecting, headers and the whole body. */
  timeoutMs: number
  /** Concurrent upstream requests; more wait in the pool's queue. */
  maxConnections: number
  /** Largest response body accepted; larger is a bad response, not an out-of-memory. */
  maxResponseBytes: number
  /** Replaces the connection pool, e.g. with undici's MockAgent in unit tests. */
  dispatcher?: Dispatcher | undefined
}

/** A 2xx answer: its body's text, and the upstream's `Cache-Control`. */
export interface Answer {
  status: number
  text: string
  cacheControl: string | undefined
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
])

/** Why a request past its UPSTREAM_TIMEOUT_MS is aborted (one object: no stack per request). */
const UPSTREAM_TIMED_OUT = new DOMException('UPSTREAM_TIMEOUT_MS passed.', 'TimeoutError')

/**
 * The only code that talks HTTP to the REST service (undici): one keep-alive connection pool per
 * process, a deadline on every request, a limit on every body, and every failure an
 * UpstreamError.
 */
export class UpstreamHttp {
  private readonly dispatcher: Dispatcher
  private readonly origin: string
  private readonly basePath: string
  private readonly timeoutMs: number

  constructor(options: SendOptions) {
    const base = new URL(options.baseUrl)
    this.origin = base.origin
    this.basePath = base.pathname.replace(/\/+$/, '')
    this.timeoutMs = options.timeoutMs
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
   * One GET of `pathAndQuery`, aborted when `operationEnded` aborts (a cancelled error) or at
   * `deadline` (epoch ms, UPSTREAM_TIMEOUT); a non-2xx answer is its status's error. `endpoint`
   * names the endpoint in errors.
   */
  async get(
    pathAndQuery: string,
    headers: Record<string, string>,
    endpoint: string,
    operationEnded: AbortSignal,
    deadline: number,
  ): Promise<Answer> {
    // One controller, a plain timer and one listener: AbortSignal.timeout and AbortSignal.any
    // cost several times more, for each of the hundreds of requests a traversal sends.
    const abort = new AbortController()
    let timedOut = false
    const timer = setTimeout(
      () => {
        timedOut = true
        abort.abort(UPSTREAM_TIMED_OUT)
      },
      Math.max(1, deadline - Date.now()),
    )
    const onEnded = () => abort.abort(operationEnded.reason)
    if (operationEnded.aborted) onEnded()
    else operationEnded.addEventListener('abort', onEnded, { once: true })
    try {
      const response = await this.dispatcher.request({
        origin: this.origin,
        path: `${this.basePath}${pathAndQuery}`,
        method: 'GET',
        headers,
        signal: abort.signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      })
      const status = response.statusCode
      if (status < 200 || status >= 300) {
        // Free the connection without reading an error body we would not show anyway.
        await response.body.dump()
        throw statusError(status, response.headers['retry-after'], endpoint)
      }
      const cacheControl = response.headers['cache-control']
      const text = await response.body.text()
      return {
        status,
        text,
        cacheControl: Array.isArray(cacheControl) ? cacheControl.join(',') : cacheControl,
      }
    } catch (error) {
      if (operationEnded.aborted) throw cancelled(endpoint)
      throw this.transportError(error, endpoint, timedOut)
    } finally {
      clearTimeout(timer)
      operationEnded.removeEventListener('abort', onEnded)
    }
  }

  /** The status a GET of `path` is answered with, its body dropped; throws when none comes. */
  async status(path: string, headers: Record<string, string>): Promise<number> {
    const response = await this.dispatcher.request({
      origin: this.origin,
      path: `${this.basePath}${path}`,
      method: 'GET',
      headers,
      signal: AbortSignal.timeout(this.timeoutMs),
    })
    await response.body.dump()
    return response.statusCode
  }

  close(): Promise<void> {
    return this.dispatcher.close()
  }

  private transportError(error: unknown, endpoint: string, timedOut: boolean): UpstreamError {
    if (error instanceof UpstreamError) return error
    const code = (error as { code?: string }).code
    if (timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
      return new UpstreamError(
        'UPSTREAM_TIMEOUT',
        endpoint,
        `no complete answer within ${this.timeoutMs} ms`,
        { cause: error },
      )
    }
    if (error instanceof undiciErrors.ResponseExceededMaxSizeError) {
      return new UpstreamError('UPSTREAM_BAD_RESPONSE', endpoint, 'response body is too large', {
        cause: error,
      })
    }
    const reason = code ?? (error instanceof Error ? error.message : 'unknown')
    return new UpstreamError('UPSTREAM_ERROR', endpoint, `request failed (${reason})`, {
      cause: error,
    })
  }
}
