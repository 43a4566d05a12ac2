import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { startDelayProxy } from '../test/support/delay-proxy.js'
import { freePort } from '../test/support/process.js'
import {
  commandsSince,
  REDIS_SKIP_REASON,
  redisAvailable,
  startRedis,
} from '../test/support/redis-server.js'
import { listId } from './demo-data.js'
import type { DemoThread } from './demo-thread.js'
import { type Gateway, gatewayWith, ms, run } from './gateway.js'
import { TRAVERSAL } from './queries.js'
import { median } from './stats.js'

/**
 * 8. Redis and replicas (issue 21), the cache on and cold:
 * - the traversal's wall time (227 reads in 4 rounds, 0 ms upstream latency) without Redis,
 *   with Redis, with Redis 60 ms away each way (a proxy: a 120 ms round trip, under the 200 ms
 *   Redis timeout) and with Redis stopped (nothing listens at REDIS_URL);
 * - 1, 2 and 4 replicas on one Redis, 5 identical traversals at once on each, 40 ms upstream
 *   latency: upstream calls, and Redis commands per call (INFO commandstats, those scripts run
 *   counted too).
 */

const traverse = (gateway: Gateway) => run(gateway, TRAVERSAL, { listId, companies: 40 })

export async function replicas(demo: DemoThread) {
  console.log('\n8. Redis and replicas: the cache on and cold')
  if (!redisAvailable) {
    console.log(`skipped: ${REDIS_SKIP_REASON}`)
    return
  }
  const redis = await startRedis()
  const admin = new Redis(redis.url)
  const proxy = await startDelayProxy(redis.port, 60)
  try {
    await demo.reset()
    const settings: [string, string | undefined][] = [
      ['no Redis', undefined],
      ['Redis, 0 ms', redis.url],
      ['Redis 120 ms round trip (proxy)', proxy.url],
      ['Redis stopped', `redis://127.0.0.1:${await freePort()}`],
    ]
    console.log(
      'traversal, 0 ms upstream latency, median of 3 cold runs (fresh gateway, Redis emptied)',
    )
    for (const [label, redisUrl] of settings) {
      const reachable = redisUrl === redis.url || redisUrl === proxy.url
      const runs: number[] = []
      const failures: number[] = []
      for (let i = 0; i < 3; i++) {
        await admin.flushall()
        // Connected before the clock starts, as a running replica is.
        const [gateway] = await connected(admin, reachable ? 1 : 0, () => [
          gatewayWith(demo, { cacheTtlSeconds: 300, redisUrl }),
        ])
        if (!gateway) throw new Error('no gateway')
        const started = performance.now()
        await traverse(gateway)
        runs.push(performance.now() - started)
        failures.push((await gateway.metrics.redisFailures.get()).values[0]?.value ?? 0)
        await gateway.close()
      }
      console.log(
        `${label.padEnd(34)} ${ms(median(runs))} ms  (runs ${runs.map((r) => ms(r, 1)).join(', ')}; failed Redis commands ${failures.join(', ')})`,
      )
    }

    await demo.setLatency(40)
    console.log(
      '\nreplicas on one Redis, 5 identical traversals at once on each, 40 ms upstream latency, cache cold',
    )
    console.log('replicas  upstream calls  Redis commands  per call  wall ms  commands')
    for (const count of [1, 2, 4]) {
      await admin.flushall()
      await demo.reset()
      await demo.setLatency(40)
      const gateways = await connected(admin, count, () =>
        Array.from({ length: count }, () =>
          gatewayWith(demo, { cacheTtlSeconds: 300, redisUrl: redis.url }),
        ),
      )
      await commandsSince(admin)
      const started = performance.now()
      await Promise.all(gateways.flatMap((g) => Array.from({ length: 5 }, () => traverse(g))))
      const wall = performance.now() - started
      const commands = await commandsSince(admin)
      const calls = (await demo.calls()).length
      const total = Object.values(commands).reduce((sum, n) => sum + n, 0)
      const detail = Object.entries(commands)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ')
      console.log(
        `${String(count).padStart(8)} ${String(calls).padStart(15)} ${String(total).padStart(15)} ${(total / calls).toFixed(2).padStart(9)} ${ms(wall)}  ${detail}`,
      )
      await Promise.all(gateways.map((g) => g.close()))
    }
  } finally {
    admin.disconnect()
    await proxy.close()
    await redis.stop()
  }
}

/** The `count` gateways `make` makes, once Redis sees their connections (two each). */
async function connected(admin: Redis, count: number, make: () => Gateway[]) {
  const clients = async () =>
    Number(/connected_clients:(\d+)/.exec(await admin.info('clients'))?.[1] ?? 0)
  const expected = (await clients()) + 2 * count
  const gateways = make()
  while ((await clients()) < expected) await sleep(10)
  return gateways
}
