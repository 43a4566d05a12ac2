import { type Dispatcher, Pool, errors as undiciErrors } from 'undici'
import { cancelled, UpstreamError } from './errors.js'

/** Stage 5, the only code that talks HTTP to the REST service (undici): one keep-alive pool, a
 *  deadline on every request, a limit on every body, every failure an UpstreamError. */

export interface SendOptions {
  /** The REST service's base URL; `/v1/...` paths are appended to it. */
  baseUrl: string
  timeoutMs: number
  maxConnections: number
  maxResponseBytes: number
  /** Replaces the connection pool, e.g. with undici's MockAgent in tests. */
  dispatcher?: Dispatcher | undefined
}

type Sending = { headers: Record<string, string>; endpoint: string; readDeadline: number }

const TIMEOUTS = ['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']
const MEANING: Record<number, [UpstreamError['code'], string]> = {
  401: ['UNAUTHENTICATED', 'the upstream refused the credentials (401)'],
  403: ['FORBIDDEN', 'access forbidden by the upstream (403)'],
  404: ['NOT_FOUND', 'not found (404)'],
  429: ['RATE_LIMITED', 'rate limited by the upstream (429)'],
}

export class UpstreamHttp {
  private readonly dispatcher: Dispatcher
  private readonly origin: string
  private readonly basePath: string

  constructor(private readonly options: SendOptions) {
    const { timeoutMs: timeout, maxResponseBytes: maxResponseSize, maxConnections } = options
    const base = new URL(options.baseUrl)
    this.origin = base.origin
    this.basePath = base.pathname.replace(/\/+$/, '')
    const pool = { connections: maxConnections, connect: { timeout }, maxResponseSize }
    this.dispatcher = options.dispatcher ?? new Pool(this.origin, pool)
  }

  /** One GET of `path`, ended when `signal` aborts (cancelled) or at `readDeadline` (epoch ms:
   *  timeout). A 2xx answer's status, body text and `Cache-Control`; else its status's error. */
  async get(path: string, { headers, endpoint, readDeadline }: Sending, signal?: AbortSignal) {
    // A timer of our own: undici's headers and body timeouts are coarse (they fire up to 1 s late).
    const timeout = new AbortController()
    const abort = () => timeout.abort()
    const timer = setTimeout(abort, Math.max(1, readDeadline - Date.now()))
    signal?.addEventListener('abort', abort)
    try {
      const { origin, basePath } = this
      const request = { origin, path: basePath + path, method: 'GET', headers } as const
      const response = await this.dispatcher.request({ ...request, signal: timeout.signal })
      const { statusCode: status, headers: answered } = response
      if (status >= 200 && status < 300) {
        const cacheControl = [answered['cache-control'] ?? []].flat().join(',') || undefined
        return { status, text: await response.body.text(), cacheControl }
      }
      // Free the connection without reading an error body nobody will see.
      await response.body.dump()
      const other = ['UPSTREAM_ERROR', `the upstream answered ${status}`] as const
      const [code, message] = MEANING[status] ?? other
      const retryAfterSeconds = seconds([answered['retry-after']].flat()[0])
      throw new UpstreamError(code, endpoint, message, { status, retryAfterSeconds })
    } catch (error) {
      if (signal?.aborted) throw cancelled(endpoint)
      if (error instanceof UpstreamError) throw error
      const code = (error as { code?: string }).code
      const timedOut = timeout.signal.aborted || TIMEOUTS.includes(code ?? '')
      const [kind, message]: [UpstreamError['code'], string] = timedOut
        ? ['UPSTREAM_TIMEOUT', `no complete answer within ${this.options.timeoutMs} ms`]
        : error instanceof undiciErrors.ResponseExceededMaxSizeError
          ? ['UPSTREAM_BAD_RESPONSE', 'response body is too large']
          : ['UPSTREAM_ERROR', `request failed (${code ?? (error as Error)?.message})`]
      throw new UpstreamError(kind, endpoint, message, { cause: error })
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', abort)
    }
  }

  close(): Promise<void> {
    return this.dispatcher.destroy()
  }
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in seconds. */
function seconds(value = ''): number | undefined {
  if (/^\s*\d+\s*$/.test(value)) return Number(value)
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000))
}
