import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Loaders, type OperationScope } from '../../src/loaders/index.js'
import type { UpstreamClient } from '../../src/upstream/client.js'
import { defineEndpoint, type PreparedRequest } from '../../src/upstream/endpoint.js'
import type { ReadScope } from '../../src/upstream/read-scope.js'

/**
 * The operation's loaders: each read made once, each answered as it lands (never when its batch's
 * slowest does, nor a cached key after its batch), and marked deferred only while no field of the
 * first payload wants it.
 */

const thing = defineEndpoint(
  'GET /v1/things/{id}',
  (p: { id: number }) => ({ path: ['v1', 'things', p.id] }),
  z.unknown(),
)

/** A client whose reads land when the test says. */
function fakeClient() {
  const sent: {
    request: PreparedRequest
    scope: ReadScope & { deferred?: boolean }
    land(v: unknown): void
  }[] = []
  const client = {
    send: (request: PreparedRequest, scope: ReadScope) =>
      new Promise((land) => sent.push({ request, scope, land })),
  } as unknown as UpstreamClient
  return { client, sent }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('Loaders', () => {
  it('makes each read once and answers each as it lands, a cached key too', async () => {
    const { client, sent } = fakeClient()
    const loaders = new Loaders(client, {} as OperationScope)
    const slow = loaders.read(thing, { id: 1 })
    const fast = loaders.read(thing, { id: 2 })
    await tick()
    expect(sent.map((s) => s.request.pathAndQuery)).toEqual(['/v1/things/1', '/v1/things/2'])
    let again: unknown
    void loaders.read(thing, { id: 2 }).then((v) => {
      again = v
    })
    sent[1]?.land('two')
    expect(await fast).toBe('two')
    await tick()
    // The slow read of the same batch has not landed: neither waits for it.
    expect(again).toBe('two')
    sent[0]?.land('one')
    expect(await slow).toBe('one')
    expect(sent).toHaveLength(2)
  })

  it('marks a read deferred only while no first-payload field has asked for it', async () => {
    const { client, sent } = fakeClient()
    const loaders = new Loaders(client, {} as OperationScope)
    void loaders.read(thing, { id: 1 }, true)
    void loaders.read(thing, { id: 2 }, true)
    void loaders.read(thing, { id: 2 }, false)
    void loaders.read(thing, { id: 3 }, false)
    await tick()
    expect(sent.map((s) => s.scope.deferred)).toEqual([true, false, false])
    // Asked by the first payload once in flight: no longer deferred, for a retry it may need.
    void loaders.read(thing, { id: 1 }, false)
    expect(sent[0]?.scope.deferred).toBe(false)
    expect(sent).toHaveLength(3)
  })

  it('keeps, where the budget is short, the call a first-payload read waiting for its retry needs', async () => {
    const { client, sent } = fakeClient()
    let used = 0
    const scope = {
      limit: 3,
      get upstreamCalls() {
        return used
      },
      spend: () => (used < 3 ? ++used > 0 : false),
    } as unknown as OperationScope
    const loaders = new Loaders(client, scope)
    void loaders.read(thing, { id: 1 })
    void loaders.read(thing, { id: 2 }, true)
    void loaders.read(thing, { id: 3 }, true)
    await tick()
    // Within the estimate nothing is kept: the first-payload read and one deferred read are sent.
    expect(sent[0]?.scope.spend()).toBe(true)
    expect(sent[1]?.scope.spend()).toBe(true)
    // The first-payload read failed and will be retried: the last call is its, not the deferred one's.
    sent[0]?.scope.retrying?.()
    sent[1]?.scope.retrying?.()
    expect(sent[2]?.scope.spend()).toBe(false)
    expect(sent[0]?.scope.spend()).toBe(true)
    // Once it has landed, nothing is kept for it.
    used = 2
    sent[0]?.land('one')
    await tick()
    expect(sent[2]?.scope.spend()).toBe(true)
  })
})
