import { LRUCache } from 'lru-cache'
import type { Logger } from 'pino'
import type { RedisLink } from './cache/redis.js'
import { isCallersOwn, UpstreamError, waitingAtLeast } from './errors.js'

/**
 * A circuit per endpoint and upstream token (UPSTREAM_CIRCUIT_FAILURES,
 * UPSTREAM_CIRCUIT_OPEN_SECONDS): once that many reads in a row have failed for good (5xx, no
 * connection, a timeout, after their retries), no request of them is sent for the open time:
 * each is refused at once with a retryable UPSTREAM_ERROR (a stale entry answers instead where
 * the cache keeps one), and a retry of a read already under way is not sent. Then the circuit is
 * half-open: the next request goes through alone (its probe); its answer closes the circuit, its
 * failure opens it again. Any answer of the upstream (a 404, a 429 too) says it is there and
 * closes the circuit; a request the operation dropped (its end, budget, deadline) says nothing.
 *
 * Replicas on one Redis hear every opening and closing on `gw:circuit` (as 429 pauses): one that
 * opened a circuit keeps the others from calling the endpoint. Failures are counted per process;
 * each replica sends its own probe. Redis down: each replica has its own circuits.
 */

export interface CircuitOptions {
  /** Reads in a row that fail for good before the circuit opens. */
  failures: number
  /** How long it stays open before a probe is let through. */
  openMs: number
  redis?: RedisLink | undefined
  logger?: Logger | undefined
}

interface State {
  /** Reads in a row that failed for good. */
  failures: number
  /** Epoch ms until which nothing is sent; 0 while closed. */
  openUntil: number
  /** Its probe is under way: nothing else is sent. */
  probing: boolean
}

const CHANNEL = 'gw:circuit'
/** Circuits kept (those that count failures or are open); the least recently used go first. */
const MAX_CIRCUITS = 10_000
/** What a caller refused while a probe is under way is told to wait. */
const PROBE_WAIT_MS = 1000

export class Circuits {
  private readonly states = new LRUCache<string, State>({ max: MAX_CIRCUITS })
  /** Every endpoint template seen: the metric shows 0 for those with nothing open. */
  private readonly templates = new Set<string>()

  constructor(private readonly options: CircuitOptions) {
    options.redis?.subscribe(CHANNEL, (message) => this.received(message))
  }

  /** The circuit of `template` (the path template) with `tokenKey` (a keyed hash), for one read. */
  of(template: string, tokenKey: string): Circuit {
    this.templates.add(template)
    return new Circuit(this, `${template} ${tokenKey}`)
  }

  /** Per endpoint template, how many of its circuits refuse requests now. */
  openByEndpoint(): Map<string, number> {
    const now = Date.now()
    const open = new Map([...this.templates].map((template) => [template, 0]))
    for (const [key, state] of this.states.entries()) {
      if (state.openUntil <= now && !state.probing) continue
      const template = key.slice(0, key.indexOf(' '))
      open.set(template, (open.get(template) ?? 0) + 1)
    }
    return open
  }

  /** Whether a request may be sent now (`probe`: as the half-open circuit's one), else the ms to wait. */
  admit(key: string): { probe: boolean } | number {
    const state = this.states.get(key)
    if (!state || state.openUntil === 0) return { probe: false }
    const now = Date.now()
    if (state.openUntil > now) return state.openUntil - now
    if (state.probing) return PROBE_WAIT_MS
    state.probing = true
    return { probe: true }
  }

  /** How long the circuit stays open from now (ms), when it is open. */
  openFor(key: string): number | undefined {
    const wait = (this.states.get(key)?.openUntil ?? 0) - Date.now()
    return wait > 0 ? wait : undefined
  }

  /** The upstream answered: the circuit closes, on every replica if it was open. */
  answered(key: string): void {
    const state = this.states.get(key)
    if (!state) return
    this.states.delete(key)
    if (state.openUntil === 0) return
    this.options.logger?.info({ endpoint: endpointOf(key) }, 'upstream circuit closed')
    this.publish(key, false)
  }

  /** A read failed for good, or a probe failed: counted, and the circuit opened when it must. */
  failed(key: string, probe: boolean): void {
    const state = this.states.get(key) ?? { failures: 0, openUntil: 0, probing: false }
    state.failures++
    if (probe) state.probing = false
    this.states.set(key, state)
    if (!probe && (state.openUntil !== 0 || state.failures < this.options.failures)) return
    const { openMs } = this.options
    state.openUntil = Date.now() + openMs
    this.options.logger?.warn(
      { endpoint: endpointOf(key), failures: state.failures, openSeconds: openMs / 1000 },
      'upstream circuit open: its reads are answered stale or refused until it is tried again',
    )
    this.publish(key, true)
  }

  /** The probe was not sent, or ended for a reason of its operation: the next request probes. */
  dropped(key: string): void {
    const state = this.states.get(key)
    if (state) state.probing = false
  }

  /** Tells every replica (this one too) that the circuit of `key` opened, or closed. */
  private publish(key: string, open: boolean) {
    const { redis } = this.options
    if (!redis) return
    const message = JSON.stringify({ key, open })
    redis.guard(() => redis.client.publish(CHANNEL, message)).catch(() => {})
  }

  /** Another replica's circuit opened (this one's then stays open its own open time), or closed. */
  private received(text: string) {
    let message: { key?: unknown; open?: unknown }
    try {
      message = JSON.parse(text)
    } catch {
      return
    }
    const { key, open } = message
    if (typeof key !== 'string') return
    if (open !== true) {
      this.states.delete(key)
      return
    }
    const state = this.states.get(key) ?? { failures: 0, openUntil: 0, probing: false }
    state.openUntil = Math.max(state.openUntil, Date.now() + this.options.openMs)
    this.states.set(key, state)
  }
}

/**
 * One read's circuit: asked before each of its requests is sent, told how each ended. The read's
 * first request refused: the circuit's own error; a retry refused: the read ends with what the
 * upstream said.
 */
export class Circuit {
  /** This read's request under way is the half-open circuit's probe. */
  private probe = false

  constructor(
    private readonly circuits: Circuits,
    private readonly key: string,
  ) {}

  /** Undefined: send the request; else the error the read's first request is refused with. */
  admit(endpoint: string): UpstreamError | undefined {
    const admitted = this.circuits.admit(this.key)
    if (typeof admitted !== 'number') {
      this.probe = admitted.probe
      return undefined
    }
    const seconds = secondsOf(admitted)
    return new UpstreamError(
      'UPSTREAM_ERROR',
      endpoint,
      `not read: its circuit is open after repeated upstream failures; it is tried again in ${seconds} s`,
      { retryAfterSeconds: seconds },
    )
  }

  /** A read's last failure, with the time until the circuit is tried again when it is open now
   *  (this failure may have opened it): trying sooner would only be refused. */
  told(failure: UpstreamError): UpstreamError {
    const wait = this.circuits.openFor(this.key)
    return wait === undefined ? failure : waitingAtLeast(failure, secondsOf(wait))
  }

  /**
   * How a request it let through ended: answered (no `failure`), or failed; `final` when the read
   * gives up (no retry follows).
   */
  ended(failure?: UpstreamError, final = true): void {
    const probe = this.probe
    this.probe = false
    if (failure !== undefined && isCallersOwn(failure)) {
      if (probe) this.circuits.dropped(this.key)
    } else if (failure === undefined || !isOutage(failure)) this.circuits.answered(this.key)
    else if (probe || final) this.circuits.failed(this.key, probe)
  }

  /** The request it let through was not sent after all. */
  unsent(): void {
    if (this.probe) this.circuits.dropped(this.key)
    this.probe = false
  }
}

/** A failure that says the upstream is not there: a 5xx, no connection, a timeout (not a 429,
 *  which the rate limiter's pause answers). */
function isOutage(failure: UpstreamError): boolean {
  return (
    failure.code === 'UPSTREAM_TIMEOUT' || (failure.code === 'UPSTREAM_ERROR' && failure.retryable)
  )
}

const secondsOf = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

const endpointOf = (key: string) => key.slice(0, key.indexOf(' '))
