import { afterEach, describe, expect, it, vi } from 'vitest'
import { FairShare, type Ticket } from '../../src/upstream/fair-share.js'

/**
 * FairShare, the queue of the upstream client's connections: free slots round robin across
 * lanes (callers), FIFO within one, a withdrawn ticket never served, a lane that waits for its
 * turn skipped until then, keeping its place.
 */

/** Tickets that record the order they are granted in and keep their releases. */
function recorder() {
  const granted: string[] = []
  const releases = new Map<string, () => void>()
  const ticket = (name: string, lane: string): Ticket => ({
    lane,
    granted: (release) => {
      granted.push(name)
      releases.set(name, release)
    },
  })
  const release = (name: string) => releases.get(name)?.()
  return { granted, ticket, release }
}

describe('FairShare', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('hands free slots round robin across lanes, FIFO within a lane', () => {
    const share = new FairShare(2)
    const { granted, ticket, release } = recorder()
    const names = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b1', 'c1', 'b2']
    for (const name of names) share.enqueue(ticket(name, name[0] ?? ''))
    expect(granted).toEqual(['a1', 'a2'])
    // Free one slot at a time: each grant goes to the next lane in the round.
    for (let i = 0; granted.length < names.length; i++) release(granted[i] ?? '')
    expect(granted).toEqual(['a1', 'a2', 'a3', 'b1', 'c1', 'a4', 'b2', 'a5', 'a6'])
  })

  it('never serves a withdrawn ticket, and a release is counted once', () => {
    const share = new FairShare(1)
    const { granted, ticket, release } = recorder()
    const a = ticket('a', 'A')
    const b = ticket('b', 'B')
    share.enqueue(a)
    share.enqueue(b)
    share.enqueue(ticket('c', 'C'))
    expect(share.withdraw(b)).toBe(true)
    // Granted already: not waiting, nothing to withdraw.
    expect(share.withdraw(a)).toBe(false)
    release('a')
    release('a')
    expect(granted).toEqual(['a', 'c'])
    // One slot, taken by c: the next ticket waits.
    share.enqueue(ticket('d', 'D'))
    expect(granted).toEqual(['a', 'c'])
    release('c')
    expect(granted).toEqual(['a', 'c', 'd'])
  })

  it('skips a lane that waits for its turn until then, serving the others meanwhile', () => {
    vi.useFakeTimers()
    const share = new FairShare(1)
    const { granted, ticket, release } = recorder()
    const a1 = ticket('a1', 'A')
    for (const t of [a1, ticket('b1', 'B'), ticket('b2', 'B'), ticket('c1', 'C')]) share.enqueue(t)
    // a1's turn is not due: its slot goes back unused and lane A waits 100 ms.
    release('a1')
    share.defer(a1, Date.now() + 100)
    expect(share.waitingUntil('A')).toBe(Date.now() + 100)
    for (const name of ['b1', 'c1', 'b2']) release(name)
    expect(granted).toEqual(['a1', 'b1', 'c1', 'b2'])
    vi.advanceTimersByTime(100)
    expect(granted).toEqual(['a1', 'b1', 'c1', 'b2', 'a1'])
    expect(share.waitingUntil('A')).toBeUndefined()
  })

  it('serves lanes whose turns came in the order they came, even when the timer fires late', () => {
    vi.useFakeTimers()
    const share = new FairShare(1)
    const { granted, ticket, release } = recorder()
    const [a1, b1] = [ticket('a1', 'A'), ticket('b1', 'B')]
    share.enqueue(ticket('c1', 'C'))
    share.enqueue(b1)
    share.enqueue(a1)
    // b1 then a1 get a slot and find their turns not due: B's comes after A's.
    release('c1')
    release('b1')
    share.defer(b1, Date.now() + 200)
    release('a1')
    share.defer(a1, Date.now() + 100)
    share.enqueue(ticket('c2', 'C'))
    // Both turns have come by the time anything is served again.
    vi.setSystemTime(Date.now() + 300)
    release('c2')
    release('a1')
    expect(granted).toEqual(['c1', 'b1', 'a1', 'c2', 'a1', 'b1'])
  })
})
