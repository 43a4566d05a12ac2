import { Redis } from 'ioredis'
import { expect, it, vi } from 'vitest'
import { REDIS_SKIP_REASON, redisAvailable } from './redis-server.js'

export * from './redis-server.js'

/**
 * A real `redis-server` for the tests that need one: each test file starts its own on a free
 * loopback port (so one file may kill it without touching another) and stops it in afterAll.
 *
 * Where redis-server is not installed those tests are skipped with the reason, one of the two skips
 * the suite allows (the other: the browser tests without Chromium, test/support/browser.ts); CI sets REQUIRE_REDIS=1, which turns a missing redis-server into a failure.
 */

if (!redisAvailable && process.env.REQUIRE_REDIS === '1') {
  it('has redis-server, which REQUIRE_REDIS=1 demands', () => {
    throw new Error(`REQUIRE_REDIS=1 but ${REDIS_SKIP_REASON}`)
  })
}

/**
 * Makes what `make` makes (gateways with REDIS_URL) and waits until Redis sees its `connections`
 * new client connections, each past ioredis's ready check (its INFO answered): until then a
 * gateway serves without Redis, which a busy machine would turn into a flaky test.
 */
export async function connectedWith<T>(url: string, connections: number, make: () => T) {
  const probe = new Redis(url)
  const clients = async () =>
    Number(/connected_clients:(\d+)/.exec(await probe.info('clients'))?.[1] ?? Number.NaN)
  try {
    const before = await clients()
    const made = make()
    await vi.waitFor(
      async () => expect(await clients()).toBeGreaterThanOrEqual(before + connections),
      {
        timeout: 10_000,
      },
    )
    // A connection that has sent nothing yet shows `cmd=NULL`; the ready check is its INFO.
    await vi.waitFor(
      async () => expect(String(await probe.call('CLIENT', 'LIST'))).not.toMatch(/cmd=NULL/),
      { timeout: 10_000 },
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    return made
  } finally {
    probe.disconnect()
  }
}
