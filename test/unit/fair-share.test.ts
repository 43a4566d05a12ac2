import { describe, expect, it } from 'vitest'
import { FairShare, type WaitEnded } from '../../src/upstream/fair-share.js'

/**
 * FairShare, the queue of the upstream client's connections: free slots round robin across
 * callers, FIFO within one, a wait ended by the caller's deadline or signal.
 */

describe('FairShare', () => {
  const never = new AbortController().signal
  const far = Number.POSITIVE_INFINITY

  it('hands free slots round robin across keys, FIFO within a key', async () => {
    const share = new FairShare(2)
    const granted: string[] = []
    const releases: (() => void)[] = []
    const ask = (name: string, key: string) =>
      share.acquire(key, never, far).then((release) => {
        granted.push(name)
        releases.push(release)
      })
    const asked = [
      ...['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((n) => ask(n, 'A')),
      ask('b1', 'B'),
      ask('c1', 'C'),
      ask('b2', 'B'),
    ]
    await new Promise((resolve) => setImmediate(resolve))
    expect(granted).toEqual(['a1', 'a2'])
    // Free one slot at a time: each grant goes to the next key in the round.
    while (granted.length < asked.length) {
      releases.shift()?.()
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(granted).toEqual(['a1', 'a2', 'a3', 'b1', 'c1', 'a4', 'b2', 'a5', 'a6'])
  })

  it('ends a wait at the caller’s deadline or signal, and a release is counted once', async () => {
    const share = new FairShare(1)
    const release = await share.acquire('A', never, far)
    const late = share.acquire('B', never, Date.now() + 20).catch((e: WaitEnded) => e.reason)
    const stop = new AbortController()
    const dropped = share.acquire('C', stop.signal, far).catch((e: WaitEnded) => e.reason)
    stop.abort()
    expect(await dropped).toBe('cancelled')
    expect(await late).toBe('deadline')
    release()
    release()
    // One slot, free again: one acquire goes through, the next waits.
    const next = await share.acquire('D', never, far)
    let waiting = true
    const after = share.acquire('E', never, far).then((r) => {
      waiting = false
      return r
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(waiting).toBe(true)
    next()
    ;(await after)()
  })
})
