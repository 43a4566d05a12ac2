/**
 * At most `capacity` upstream requests in flight. Requests waiting for a slot queue per lane (one
 * lane per caller) and free slots go round robin across lanes, so one caller's backlog of hundreds
 * of reads delays another caller's read by at most one of its own. A lane can be told to wait
 * (its caller's rate turn is not due): it keeps its place in the round and is skipped until then.
 * A waiting ticket can be withdrawn (its operation ended, its deadline passed, its read was made
 * by someone else); it then never takes a slot.
 *
 * Hand-written: undici's pool queue is first come first served, and the npm packages that queue
 * per key (fair-task-pool, fair-queue) neither share one capacity across keys nor let a queued
 * entry be withdrawn or a key wait.
 */

export interface Ticket {
  /** The caller it waits for: slots go round robin across lanes. */
  readonly lane: string
  /** It has a slot now; `release` frees it (counted once, however often called). */
  granted(release: () => void): void
}

export class FairShare {
  private inFlight = 0
  /** Waiting tickets per lane; Map order is the round: a served lane moves to the back. */
  private readonly lanes = new Map<string, Ticket[]>()
  /** Lanes skipped until then (epoch ms). */
  private readonly waitUntil = new Map<string, number>()
  private wake: { at: number; timer: NodeJS.Timeout } | undefined
  private serving = false

  constructor(private readonly capacity: number) {}

  /** Queues `ticket` at the back of its lane; granted at once when a slot is free for it. */
  enqueue(ticket: Ticket): void {
    this.add(ticket, 'back')
    this.serve()
  }

  /**
   * Puts a ticket whose slot was released unused back at the head of its lane, which is skipped
   * until `until` (epoch ms): it keeps its place in its caller's queue and in the round.
   */
  defer(ticket: Ticket, until: number): void {
    this.add(ticket, 'front')
    if (until > Date.now()) {
      this.waitUntil.set(ticket.lane, Math.max(until, this.waitUntil.get(ticket.lane) ?? 0))
      this.wakeAt(until)
    }
    this.serve()
  }

  /** Takes a waiting ticket out of its lane; false when it is not waiting (granted already). */
  withdraw(ticket: Ticket): boolean {
    const lane = this.lanes.get(ticket.lane)
    const at = lane?.indexOf(ticket) ?? -1
    if (!lane || at < 0) return false
    lane.splice(at, 1)
    if (lane.length === 0) this.lanes.delete(ticket.lane)
    return true
  }

  /** When `lane` is skipped until (epoch ms), if it is. */
  waitingUntil(lane: string): number | undefined {
    const until = this.waitUntil.get(lane)
    return until !== undefined && until > Date.now() ? until : undefined
  }

  private add(ticket: Ticket, end: 'front' | 'back') {
    const lane = this.lanes.get(ticket.lane)
    if (!lane) this.lanes.set(ticket.lane, [ticket])
    else if (end === 'back') lane.push(ticket)
    else lane.unshift(ticket)
  }

  private serve() {
    // A grant may release or defer at once: the loop below picks that up instead of recursing.
    if (this.serving) return
    this.serving = true
    try {
      while (this.inFlight < this.capacity) {
        const ticket = this.next()
        if (!ticket) return
        ticket.granted(this.take())
      }
    } finally {
      this.serving = false
    }
  }

  /**
   * The head of the lane whose wait ended first (turns are served in the order they came, even
   * when a timer fires late), else of the first lane in the round that does not wait; its lane
   * moves to the back.
   */
  private next(): Ticket | undefined {
    const now = Date.now()
    let chosen: string | undefined
    let chosenUntil = Number.POSITIVE_INFINITY
    for (const name of this.lanes.keys()) {
      const until = this.waitUntil.get(name)
      if (until === undefined) chosen ??= name
      else if (until <= now && until < chosenUntil) {
        chosen = name
        chosenUntil = until
      }
    }
    const lane = chosen === undefined ? undefined : this.lanes.get(chosen)
    if (chosen === undefined || !lane) return undefined
    this.waitUntil.delete(chosen)
    const ticket = lane.shift()
    this.lanes.delete(chosen)
    if (lane.length > 0) this.lanes.set(chosen, lane)
    return ticket
  }

  private take(): () => void {
    this.inFlight++
    let released = false
    return () => {
      if (released) return
      released = true
      this.inFlight--
      this.serve()
    }
  }

  /** Serves again when the earliest waiting lane may go. */
  private wakeAt(at: number) {
    if (this.wake && this.wake.at <= at) return
    if (this.wake) clearTimeout(this.wake.timer)
    const timer = setTimeout(
      () => {
        this.wake = undefined
        let earliest = Number.POSITIVE_INFINITY
        for (const [lane, until] of this.waitUntil) {
          if (until <= Date.now()) this.waitUntil.delete(lane)
          else earliest = Math.min(earliest, until)
        }
        if (Number.isFinite(earliest)) this.wakeAt(earliest)
        this.serve()
      },
      Math.max(0, at - Date.now()),
    )
    timer.unref()
    this.wake = { at, timer }
  }
}
