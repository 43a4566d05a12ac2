import { Pool } from 'undici'
import { type Child, cpuMs } from '../children.js'
import { ONE_COMPANY } from '../queries.js'
import { median, percentile } from '../stats.js'
import { closedLoop, postGraphQL, readsOf, restGet, spread, type Target } from './load.js'
import { ROUNDS } from './sizes.js'

/**
 * The one-company measurements: rounds of the closed loop on each target, with the CPU time each
 * process spent on them, and the check that every target answers the same.
 */

/** What a round, or a target's rounds together, measured. */
interface Measured {
  rate: number
  p50: number
  p99: number
  cpuPerOp?: number
  demoCpuPerOp: number
  loadCpuPerOp: number
  failures: number
  firstFailures: string[]
}

export interface Round extends Measured {
  ops: number
  seconds: number
}

export interface Result extends Measured {
  name: string
  rounds: Round[]
  /** Median over the rounds of (this target's rate / direct REST's rate in the same round). */
  ratio: number
}

/** One round of `total` operations on `target`, with the CPU ms per operation of each process. */
export async function measure(
  target: Target,
  total: number,
  demo: Child,
  offset: number,
): Promise<Round> {
  const cpuBefore = target.child ? cpuMs(target.child.pid) : 0
  const demoBefore = cpuMs(demo.pid)
  const loadBefore = process.cpuUsage()
  const loop = await closedLoop(target, total, offset)
  const load = process.cpuUsage(loadBefore)
  const cpuAfter = target.child ? cpuMs(target.child.pid) : 0
  const demoAfter = cpuMs(demo.pid)
  return {
    ops: loop.count,
    seconds: loop.seconds,
    rate: loop.count / loop.seconds,
    p50: percentile(loop.durations, 0.5),
    p99: percentile(loop.durations, 0.99),
    cpuPerOp: target.child ? (cpuAfter - cpuBefore) / loop.count : undefined,
    demoCpuPerOp: (demoAfter - demoBefore) / loop.count,
    loadCpuPerOp: (load.user + load.system) / 1000 / loop.count,
    failures: loop.failures,
    firstFailures: loop.firstFailures,
  }
}

/**
 * A warm-up of each target, then ROUNDS rounds of `total` operations on every target,
 * interleaved (round 1 of each, then round 2 …, each round starting with another target); the
 * first target is the reference (direct REST).
 */
export async function compare(targets: Target[], total: number, demo: Child, warmUpMs: number) {
  for (const target of targets) {
    const warmUp = await closedLoop(target, spread.length, 0, warmUpMs)
    if (warmUp.failures > 0) {
      console.log(
        `  ${target.name}: ${warmUp.failures} failed warm-up operation(s), first: ${warmUp.firstFailures.join('; ')}`,
      )
    }
  }
  const rounds = targets.map(() => [] as Round[])
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < targets.length; k++) {
      const index = (round + k) % targets.length
      const target = targets[index] as Target
      rounds[index]?.push(await measure(target, total * (target.opsFactor ?? 1), demo, round * 997))
    }
  }
  const reference = rounds[0] as Round[]
  return targets.map((target, index) => resultOf(target, rounds[index] as Round[], reference))
}

/** A target's rounds summed up: medians, and its rate over the reference's in the same round. */
function resultOf(target: Target, own: Round[], reference: Round[]): Result {
  const cpu = own.flatMap((r) => (r.cpuPerOp === undefined ? [] : [r.cpuPerOp]))
  return {
    name: target.name,
    rounds: own,
    rate: median(own.map((r) => r.rate)),
    ratio: median(own.map((r, i) => r.rate / (reference[i]?.rate ?? Number.NaN))),
    p50: median(own.map((r) => r.p50)),
    p99: median(own.map((r) => r.p99)),
    cpuPerOp: cpu.length ? median(cpu) : undefined,
    demoCpuPerOp: median(own.map((r) => r.demoCpuPerOp)),
    loadCpuPerOp: median(own.map((r) => r.loadCpuPerOp)),
    failures: own.reduce((sum, r) => sum + r.failures, 0),
    firstFailures: own.flatMap((r) => r.firstFailures).slice(0, 3),
  }
}

/** Whether the gateway, the bare yoga server and the REST read give the same data. */
export async function sameAnswers(gateway: string, bare: string, demoUrl: string) {
  const gatewayPool = new Pool(gateway, { connections: 1 })
  const barePool = new Pool(bare, { connections: 1 })
  const demoPool = new Pool(demoUrl, { connections: 1 })
  try {
    for (const op of spread.slice(0, 20)) {
      const a = await postGraphQL(gatewayPool, ONE_COMPANY, op.variables)
      const b = await postGraphQL(barePool, ONE_COMPANY, op.variables)
      const rest = await restGet<{ identifier: { name?: string } }>(
        demoPool,
        readsOf(op)[0] as string,
      )
      if (
        JSON.stringify(a.data) !== JSON.stringify(b.data) ||
        a.data?.company?.name !== (rest.identifier.name ?? null)
      ) {
        return false
      }
    }
    return true
  } finally {
    await Promise.all([gatewayPool.close(), barePool.close(), demoPool.close()])
  }
}
