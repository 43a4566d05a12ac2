import { randomUUID } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Logger } from 'pino'
import type { RedisLink } from './cache/redis.js'
import {
  CHANNEL,
  type CircuitCommands,
  COUNT_WINDOW_MS,
  countKey,
  FAILED_SCRIPT,
  OPEN_KEY,
  OPEN_SCRIPT,
  PROBE_REPORT_MS,
  probeKey,
  RELEASE_SCRIPT,
} from './circuit-redis.js'
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
 * Replicas on one Redis share their circuits: a read that fails for good counts in Redis (one
 * script: the count, and the opening when it is reached; a success on any replica that heard of a
 * failure resets it, so a read that succeeds costs no command while nothing fails). An open
 * circuit is noted in Redis with when it opened, and every opening and closing is told on
 * `gw:circuit` (as 429 pauses); a replica that starts or reconnects reads the circuits open now.
 * Each replica keeps a circuit open for its own open time. One probe goes out over every replica:
 * a replica whose circuit turns half-open claims it in Redis first (one command, only then); the
 * others refuse while the claim holds, until the probe's outcome is told (closed, or opened
 * again). A probe's failure opens the circuit again only while its claim is the current one: a
 * circuit closed meanwhile (by any answer) counts it as one failure. Redis down: each replica
 * counts and opens its own circuits and sends its own probe.
 */

export interface CircuitOptions {
  /** Reads in a row that fail for good before the circuit opens. */
  failures: number
  /** How long it stays open before a probe is let through. */
  openMs: number
  /** The longest a probe may take (UPSTREAM_TIMEOUT_MS): its claim over replicas outlasts it. */
  probeMs: number
  redis?: RedisLink | undefined
  logger?: Logger | undefined
}

interface State {
  /** Reads in a row that failed for good (with Redis: over every replica, as last counted or
   *  heard); not 0: this replica's next answer restarts the shared count. */
  failures: number
  /** Epoch ms until which nothing is sent; 0 while closed. */
  openUntil: number
  /** Half-open: epoch ms until which a probe under way (this replica's or another's) is the only
   *  request sent; 0: none. */
  probeUntil: number
  /** This replica's probe under way (its id, also its claim in Redis). */
  probe: string | undefined
}

/** Whether a request may be sent now (`probe`: the half-open circuit's one, its id), else the ms
 *  to wait. */
type Admission = { probe: string | undefined } | number
const SEND: Admission = { probe: undefined }
/** Circuits kept (those that count failures or are open); the least recently used go first. */
const MAX_CIRCUITS = 10_000
/** What a caller refused while a probe is under way is told to wait. */
const PROBE_WAIT_MS = 1000

export class Circuits {
  private readonly states = new LRUCache<string, State>({ max: MAX_CIRCUITS })
  /** Every endpoint template seen: the metric shows 0 for those with nothing open. */
  private readonly templates = new Set<string>()

  constructor(private readonly options: CircuitOptions) {
    const { redis } = options
    if (!redis) return
    redis.client.defineCommand('gwCircuitFailed', { numberOfKeys: 3, lua: FAILED_SCRIPT })
    redis.client.defineCommand('gwCircuitsOpen', { numberOfKeys: 1, lua: OPEN_SCRIPT })
    redis.client.defineCommand('gwCircuitRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT })
    redis.subscribe(CHANNEL, (message) => this.received(message))
    redis.onListening(() => this.catchUp())
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
      if (state.openUntil <= now && state.probeUntil <= now) continue
      const template = key.slice(0, key.indexOf(' '))
      open.set(template, (open.get(template) ?? 0) + 1)
    }
    return open
  }

  /** Whether a request may be sent now; with Redis, a circuit turning half-open asks it first. */
  admit(key: string): Admission | Promise<Admission> {
    const state = this.states.get(key)
    if (!state || state.openUntil === 0) return SEND
    const now = Date.now()
    if (state.openUntil > now) return state.openUntil - now
    if (state.probeUntil > now) return PROBE_WAIT_MS
    const probe = randomUUID()
    state.probe = probe
    state.probeUntil = now + this.claimMs
    const { redis } = this.options
    return redis ? this.claimed(redis, key, probe) : { probe }
  }

  /** How long a probe's claim lasts. */
  private get claimMs(): number {
    return this.options.probeMs + PROBE_REPORT_MS
  }

  /**
   * `probe` claimed in Redis: sent if the claim is its own; else refused, and the claim asked
   * again a while later, while another replica's probe holds it.
   */
  private async claimed(redis: RedisLink, key: string, probe: string): Promise<Admission> {
    const claimed = await redis
      .guard(() => redis.client.set(probeKey(key), probe, 'PX', this.claimMs, 'NX'))
      // Redis down: this replica probes alone, as it would without Redis.
      .catch(() => 'OK')
    const state = this.states.get(key)
    if (state?.probe !== probe) {
      // Told meanwhile that the circuit closed or opened again.
      if (claimed) this.release(key, probe)
      return state?.openUntil ? Math.max(state.openUntil - Date.now(), PROBE_WAIT_MS) : SEND
    }
    if (claimed) return { probe }
    state.probe = undefined
    state.probeUntil = Date.now() + PROBE_WAIT_MS
    return PROBE_WAIT_MS
  }

  /** How long the circuit stays open from now (ms), when it is open. */
  openFor(key: string): number | undefined {
    const wait = (this.states.get(key)?.openUntil ?? 0) - Date.now()
    return wait > 0 ? wait : undefined
  }

  /** The upstream answered: the circuit closes and its count restarts, on every replica. */
  answered(key: string): void {
    const state = this.states.get(key)
    if (!state) return
    this.states.delete(key)
    if (state.openUntil !== 0) {
      this.options.logger?.info({ endpoint: endpointOf(key) }, 'upstream circuit closed')
    }
    const { redis } = this.options
    if (!redis) return
    const closed = JSON.stringify({ key, open: false })
    const batch = redis.client.multi().del(countKey(key), probeKey(key)).zrem(OPEN_KEY, key)
    redis.exec(batch.publish(CHANNEL, closed)).catch(() => {})
  }

  /**
   * A read failed for good, or a probe failed: counted, and the circuit opened when it must (at
   * once for the half-open circuit's probe; a probe that is no longer it counts as a read).
   */
  async failed(key: string, probe: string | undefined): Promise<void> {
    const known = this.states.get(key)
    const current = probe !== undefined && known?.probe === probe
    // Open here already: a read let through before it opened tells nothing new.
    if (!current && (known?.openUntil ?? 0) !== 0) return
    const shared = await this.counted(key, current ? probe : '')
    const state = this.stateOf(key)
    if (current && state.probe === probe) {
      state.probe = undefined
      state.probeUntil = 0
    }
    state.failures = shared?.[0] ?? state.failures + 1
    const opens = shared ? shared[1] === 1 : current || state.failures >= this.options.failures
    if (!opens) return
    const { openMs } = this.options
    this.opened(key, openMs)
    this.options.logger?.warn(
      { endpoint: endpointOf(key), failures: state.failures, openSeconds: openMs / 1000 },
      'upstream circuit open: its reads are answered stale or refused until it is tried again',
    )
  }

  /** The probe was not sent, or ended for a reason of its operation: the next request probes. */
  dropped(key: string, probe: string): void {
    const state = this.states.get(key)
    if (state?.probe !== probe) return
    state.probe = undefined
    state.probeUntil = 0
    this.release(key, probe)
  }

  /** Ends `probe`'s claim in Redis, if it is still its. */
  private release(key: string, probe: string) {
    const { redis } = this.options
    if (!redis) return
    const command = redis.client as unknown as CircuitCommands
    redis.guard(() => command.gwCircuitRelease(probeKey(key), probe)).catch(() => {})
  }

  /** The failures of `key` in a row over every replica, this one counted, and whether Redis
   *  opened the circuit (when they are enough, or at the current probe's failure: `probe`, its id,
   *  or ''); undefined without Redis. */
  private async counted(
    key: string,
    probe: string,
  ): Promise<[count: number, opened: number] | undefined> {
    const { redis, failures, openMs } = this.options
    if (!redis) return undefined
    const command = redis.client as unknown as CircuitCommands
    return redis
      .guard(() =>
        command.gwCircuitFailed(
          countKey(key),
          OPEN_KEY,
          probeKey(key),
          failures,
          COUNT_WINDOW_MS,
          openMs,
          CHANNEL,
          key,
          probe,
        ),
      )
      .catch(() => undefined)
  }

  /** The circuit of `key` opened `ms` before its open time is over (kept open at least that long):
   *  a probe under way is no longer the half-open circuit's. */
  private opened(key: string, ms: number) {
    const state = this.stateOf(key)
    state.openUntil = Math.max(state.openUntil, Date.now() + ms)
    state.probe = undefined
    state.probeUntil = 0
  }

  /** The state of `key`, made (closed, nothing counted) when there is none. */
  private stateOf(key: string): State {
    const state = this.states.get(key) ?? {
      failures: 0,
      openUntil: 0,
      probeUntil: 0,
      probe: undefined,
    }
    this.states.set(key, state)
    return state
  }

  /** Just subscribed (at start, after a reconnection): the circuits that opened meanwhile. */
  private catchUp() {
    const { redis, openMs } = this.options
    if (!redis) return
    const command = redis.client as unknown as CircuitCommands
    redis
      .guard(() => command.gwCircuitsOpen(OPEN_KEY, openMs))
      .then((open) => {
        for (let i = 0; i + 1 < open.length; i += 2) {
          this.opened(open[i] as string, openMs - Number(open[i + 1]))
        }
      })
      .catch(() => {})
  }

  /** Another replica's circuit opened (this one's then stays open its own open time), or closed,
   *  or failed once more (this one's next answer then resets the count). */
  private received(text: string) {
    let message: { key?: unknown; open?: unknown; failures?: unknown }
    try {
      message = JSON.parse(text)
    } catch {
      return
    }
    const { key, open, failures } = message
    if (typeof key !== 'string') return
    if (open === true) this.opened(key, this.options.openMs)
    else if (typeof failures === 'number') this.stateOf(key).failures = failures
    else this.states.delete(key)
  }
}

/**
 * One read's circuit: asked before each of its requests is sent, told how each ended. The read's
 * first request refused: the circuit's own error; a retry refused: the read ends with what the
 * upstream said.
 */
export class Circuit {
  /** This read's request under way is the half-open circuit's probe: its id. */
  private probe: string | undefined

  constructor(
    private readonly circuits: Circuits,
    private readonly key: string,
  ) {}

  /** Undefined: send the request; else the error the read's first request is refused with. */
  async admit(endpoint: string): Promise<UpstreamError | undefined> {
    const admitted = await this.circuits.admit(this.key)
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
  async ended(failure?: UpstreamError, final = true): Promise<void> {
    const { probe } = this
    this.probe = undefined
    if (failure !== undefined && isCallersOwn(failure)) {
      if (probe !== undefined) this.circuits.dropped(this.key, probe)
    } else if (failure === undefined || !isOutage(failure)) this.circuits.answered(this.key)
    else if (probe !== undefined || final) await this.circuits.failed(this.key, probe)
  }

  /** The request it let through was not sent after all. */
  unsent(): void {
    if (this.probe !== undefined) this.circuits.dropped(this.key, this.probe)
    this.probe = undefined
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
