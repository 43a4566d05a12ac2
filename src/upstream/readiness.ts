import type { UpstreamMetrics, UpstreamStatus } from '../observability/metrics.js'
import type { UpstreamHttp } from './send.js'

/** The smallest read there is, which readiness checks make (one list of the overview). */
const READINESS_PATH = '/v1/lists'
/** How long one readiness check answers every probe (contract: at most 5 s). */
const READY_REUSE_MS = 5000

/**
 * Readiness: whether the upstream answers and accepts the gateway's own token (a 401 or 403 is
 * not ready; without UPSTREAM_TOKEN any answer below 500 is). One check serves every probe for
 * READY_REUSE_MS, so probes never cost one paid call each.
 */
export class Readiness {
  /** The last check and when it started. */
  private last: { at: number; answer: Promise<boolean> } | undefined

  constructor(
    private readonly http: UpstreamHttp,
    private readonly serviceToken: string | undefined,
    private readonly metrics: UpstreamMetrics | undefined,
  ) {}

  ready(): Promise<boolean> {
    const now = Date.now()
    if (this.last && now - this.last.at < READY_REUSE_MS) return this.last.answer
    const answer = this.check()
    this.last = { at: now, answer }
    return answer
  }

  private async check(): Promise<boolean> {
    const started = performance.now()
    let status: UpstreamStatus = 'error'
    try {
      const headers: Record<string, string> = this.serviceToken
        ? { authorization: `Bearer ${this.serviceToken}` }
        : {}
      const statusCode = await this.http.status(`${READINESS_PATH}?limit=1`, headers)
      status = statusCode
      if (this.serviceToken && (statusCode === 401 || statusCode === 403)) return false
      return statusCode < 500
    } catch {
      return false
    } finally {
      this.metrics?.upstreamRequest(READINESS_PATH, status, (performance.now() - started) / 1000)
    }
  }
}
