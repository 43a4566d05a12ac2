import { execFileSync } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { Pool } from 'undici'
import { DEMO_TOKEN } from '../src/demo-upstream/server.js'
import {
  type Child,
  cpuMs,
  freePort,
  memoryOf,
  root,
  spawnNode,
  waitForOutput,
} from './children.js'
import { listId } from './demo-data.js'
import { graphqlTarget, postGraphQL } from './headline/load.js'
import { measure } from './headline/measure.js'
import { mib } from './headline/report.js'
import { startBareYoga, startDemo, startGateway } from './headline/servers.js'
import { TRAVERSAL } from './queries.js'
import { median } from './stats.js'

/**
 * `npm run bench -- --only=read-path`: what the read path costs, against floors measured in the
 * same run, each server a process of its own on loopback HTTP (demo upstream at 0 ms latency):
 *
 * 1. CPU per upstream read in the traversal (227 reads), cache off: the gateway's CPU time
 *    (everything: HTTP, GraphQL, the read path, serialization) over its reads, against a bare
 *    Node process making the same reads level by level with undici and `JSON.parse`
 *    (bench/floor.ts). Rounds interleaved; the ratio of each round, and their median.
 * 2. The one-company query, cache off: CPU per operation of the gateway and of bare graphql-yoga
 *    (bench/bare-yoga.ts) side by side, then the resident memory (VmRSS) of both fresh processes
 *    after the same load.
 */

const ROUNDS = 5
const TRAVERSALS_PER_ROUND = 10
const WARM_UP_TRAVERSALS = 15
const OPS_PER_ROUND = 3000
const WARM_UP_OPS = 2000

export async function runReadPath() {
  console.log('building dist/ (tsc -p tsconfig.build.json) …')
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  })
  const started: Child[] = []
  const keep = <T extends { child: Child }>(server: T) => {
    started.push(server.child)
    return server
  }
  try {
    const port = await freePort()
    const demo = keep({ child: await startDemo(port, 0) }).child
    const upstream = `http://127.0.0.1:${port}`
    await perRead(upstream, keep)
    await oneCompany(upstream, demo, keep)
  } finally {
    for (const child of started.reverse()) await child.stop()
  }
}

async function perRead(demoUrl: string, keep: <T extends { child: Child }>(s: T) => T) {
  const gateway = keep(await startGateway(demoUrl, { cache: false, maxConnections: 512 }))
  const floorChild = spawnNode('floor', ['--import', 'tsx', 'bench/floor.ts'], {
    UPSTREAM_URL: demoUrl,
    UPSTREAM_TOKEN: DEMO_TOKEN,
    LIST_ID: String(listId),
    COMPANIES: '40',
  })
  keep({ child: floorChild })
  const [, floorUrl] = await waitForOutput(floorChild, /floor listening at (http:\/\/[\d.:]+)/)
  const gatewayPool = new Pool(gateway.origin, { connections: 1 })
  const floorPool = new Pool(floorUrl as string, { connections: 1 })
  const viaGateway = async (times: number) => {
    let reads = 0
    for (let i = 0; i < times; i++) {
      const body = await postGraphQL(gatewayPool, TRAVERSAL, { listId, companies: 40 })
      if (body.errors) throw new Error(JSON.stringify(body.errors).slice(0, 300))
      reads += body.extensions?.cost?.upstreamCalls ?? 0
    }
    return reads
  }
  const viaFloor = async (times: number) => {
    const response = await floorPool.request({ path: `/traverse?times=${times}`, method: 'GET' })
    return times * Number(await response.body.text())
  }
  /** CPU ms per read of `child` while `run` makes its reads. */
  const cpuPerRead = async (child: Child, run: () => Promise<number>) => {
    const before = cpuMs(child.pid)
    const reads = await run()
    return { perRead: (cpuMs(child.pid) - before) / reads, reads }
  }
  await viaGateway(WARM_UP_TRAVERSALS)
  await viaFloor(WARM_UP_TRAVERSALS)
  const rows: { gateway: number; floor: number; reads: number }[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['gateway', 'floor'] : ['floor', 'gateway']
    const row = { gateway: 0, floor: 0, reads: 0 }
    for (const which of order) {
      if (which === 'gateway') {
        const measured = await cpuPerRead(gateway.child, () => viaGateway(TRAVERSALS_PER_ROUND))
        row.gateway = measured.perRead
        row.reads = measured.reads / TRAVERSALS_PER_ROUND
      } else
        row.floor = (await cpuPerRead(floorChild, () => viaFloor(TRAVERSALS_PER_ROUND))).perRead
    }
    rows.push(row)
  }
  await Promise.all([gatewayPool.close(), floorPool.close()])
  await gateway.child.stop()
  await floorChild.stop()
  console.log(
    `\nREAD PATH 1. CPU per upstream read, traversal (list → 40 companies → financials + 3 lookalikes { name financials } + shareholders), cache off, 0 ms upstream latency, ${TRAVERSALS_PER_ROUND} traversals one at a time per round, ${ROUNDS} rounds interleaved`,
  )
  console.log('  round  reads  gateway ms/read  floor ms/read  gateway ÷ floor')
  for (const [i, row] of rows.entries()) {
    console.log(
      `  ${String(i + 1).padStart(5)}  ${String(row.reads).padStart(5)}  ${row.gateway.toFixed(3).padStart(15)}  ${row.floor.toFixed(3).padStart(13)}  ${(row.gateway / row.floor).toFixed(2).padStart(15)}`,
    )
  }
  const ratios = rows.map((row) => row.gateway / row.floor)
  console.log(
    `  median: gateway ${median(rows.map((r) => r.gateway)).toFixed(3)} ms/read, floor ${median(rows.map((r) => r.floor)).toFixed(3)} ms/read, ratio ${median(ratios).toFixed(2)} (range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}; target ≤ 1.5)`,
  )
}

async function oneCompany(
  demoUrl: string,
  demo: Child,
  keep: <T extends { child: Child }>(s: T) => T,
) {
  const gateway = keep(await startGateway(demoUrl, { cache: false }))
  const bare = keep(await startBareYoga(demoUrl))
  await sleep(500)
  const idle = { gateway: memoryOf(gateway.child.pid).rss, bare: memoryOf(bare.child.pid).rss }
  const targets = [
    graphqlTarget('bare graphql-yoga', bare.origin, bare.child),
    graphqlTarget('gateway, cache off', gateway.origin, gateway.child),
  ]
  for (const target of targets) await measure(target, WARM_UP_OPS, demo, 0)
  const cpu = targets.map(() => [] as number[])
  for (let round = 0; round < 3; round++) {
    for (let k = 0; k < targets.length; k++) {
      const index = (round + k) % targets.length
      const measured = await measure(targets[index] as never, OPS_PER_ROUND, demo, round * 997)
      cpu[index]?.push(measured.cpuPerOp ?? Number.NaN)
    }
  }
  for (const target of targets) await target.close()
  const after = { gateway: memoryOf(gateway.child.pid), bare: memoryOf(bare.child.pid) }
  const [bareCpu = [], gatewayCpu = []] = cpu
  console.log(
    `\nREAD PATH 2. one-company query (name, place, 5 full statements), cache off, 0 ms, 16 in flight, 3 rounds × ${OPS_PER_ROUND} operations interleaved after ${WARM_UP_OPS}`,
  )
  console.log(
    `  CPU ms/op: gateway ${gatewayCpu.map((v) => v.toFixed(3)).join(' ')}, bare graphql-yoga ${bareCpu.map((v) => v.toFixed(3)).join(' ')}; medians ${median(gatewayCpu).toFixed(3)} / ${median(bareCpu).toFixed(3)} = ${(median(gatewayCpu) / median(bareCpu)).toFixed(2)} ×`,
  )
  const ops = WARM_UP_OPS + 3 * OPS_PER_ROUND
  console.log(
    `  VmRSS idle → after ${ops} operations: gateway ${mib(idle.gateway)} → ${mib(after.gateway.rss)} (peak ${mib(after.gateway.peak)}), bare graphql-yoga ${mib(idle.bare)} → ${mib(after.bare.rss)} (peak ${mib(after.bare.peak)}); after: ${(after.gateway.rss / after.bare.rss).toFixed(2)} × (target ≤ 1.25)`,
  )
}
