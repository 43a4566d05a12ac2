import { execFileSync } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { type Child, CLOCK_TICKS, freePort, memoryOf, root } from './children.js'
import { directTarget, graphqlTarget, type Target } from './headline/load.js'
import { compare, measure, type Result, sameAnswers } from './headline/measure.js'
import {
  type Figures,
  fixed,
  mib,
  printResults,
  printTraversals,
  type SummaryRow,
  summaryOf,
} from './headline/report.js'
import { startBareYoga, startDemo, startGateway } from './headline/servers.js'
import {
  COMPANY_SPREAD,
  CONCURRENCY,
  DIRECT_OPS_FACTOR_0MS,
  LOG_LEVEL,
  OPS_0MS,
  OPS_20MS,
  ROUNDS,
  RSS_OPS,
  TRAVERSAL_CONNECTIONS,
  WARM_UP_MS_0MS,
  WARM_UP_MS_20MS,
} from './headline/sizes.js'
import { directTraversal, sameTraversal, type Traversal, traversal } from './headline/traversal.js'

/**
 * The headline of `npm run bench`: the gateway the way users feel it. Every server is a process
 * of its own on loopback HTTP (bench/headline/servers.ts): the demo upstream, restarted on the
 * same port with another DEMO_LATENCY_MS for each injected latency, the gateway and a bare
 * graphql-yoga server. The load comes from this process (bench/headline/load.ts). Figures are
 * printed, never asserted; the summary compares them with the targets (bench/headline/report.ts).
 */

/** A server process and where it listens. */
interface Server {
  child: Child
  origin: string
}

/** Every process the headline starts, stopped when it ends however it ends; the demo among them. */
class Processes {
  private readonly started: Child[] = []
  private demo: Child | undefined
  readonly demoUrl: string

  constructor(private readonly demoPort: number) {
    this.demoUrl = `http://127.0.0.1:${demoPort}`
  }

  /** The demo upstream, (re)started on its port with `latencyMs` of latency. */
  async demoAt(latencyMs: number): Promise<Child> {
    await this.demo?.stop()
    this.demo = this.add(await startDemo(this.demoPort, latencyMs))
    return this.demo
  }

  add<T extends Child>(child: T): T {
    this.started.push(child)
    return child
  }

  async stopAll() {
    for (const child of this.started.reverse()) await child.stop()
  }
}

export async function runHeadline(): Promise<SummaryRow[]> {
  console.log('building dist/ (tsc -p tsconfig.build.json) …')
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  })
  console.log(
    `\nHEADLINE. Processes on loopback HTTP: demo upstream (dist/demo-upstream/main.js, DEMO_LATENCY_MS), gateway (dist/main.js, NODE_ENV=production, LOG_LEVEL=${LOG_LEVEL}), bare graphql-yoga (bench/bare-yoga.ts). Load from this process: undici Pool per target, closed loop, ${CONCURRENCY} in flight. CPU ms/op: the target process's (/proc/<pid>/stat utime+stime, CLK_TCK ${CLOCK_TICKS}); "demo": the demo upstream's; "load": this process's.`,
  )
  console.log(
    `One-company query: name, place, financials(first: 5) with every statement field, over ${COMPANY_SPREAD} companies. The gateway makes 1 upstream read for it (GET /v1/companies/{country}/{number}/financials?limit=500&offset=0); direct REST sends that read. ${ROUNDS} interleaved rounds per target, after a warm-up (at least ${WARM_UP_MS_0MS / 1000} s at 0 ms, ${WARM_UP_MS_20MS / 1000} s at 20 ms, and every company once: fills the cache where it is on). Medians over the rounds; "× direct": median of the per-round ratios.`,
  )

  const processes = new Processes(await freePort())
  try {
    const demo = await processes.demoAt(0)
    const { demoUrl } = processes
    const start = async (server: Promise<Server>) => {
      const started = await server
      processes.add(started.child)
      return started
    }
    const off = await start(startGateway(demoUrl, { cache: false }))
    const on = await start(startGateway(demoUrl, { cache: true }))
    const info = await start(startGateway(demoUrl, { cache: false, logLevel: 'info' }))
    const bare = await start(startBareYoga(demoUrl))

    const at0 = await oneCompanyAt0(demo, demoUrl, { off, on, info, bare })
    await info.child.stop()
    const memory = await gatewayMemory(demo, await start(startGateway(demoUrl, { cache: false })))
    const demoAt20 = await processes.demoAt(20)
    const bareKeeping = await start(startBareYoga(demoUrl, true))
    const at20 = await oneCompanyAt20(demoAt20, demoUrl, { off, on, bare, bareKeeping })
    await on.child.stop()
    await bare.child.stop()
    await bareKeeping.child.stop()
    const wide = await start(
      startGateway(demoUrl, { cache: false, maxConnections: TRAVERSAL_CONNECTIONS }),
    )
    const bareWide = await start(startBareYoga(demoUrl, false, TRAVERSAL_CONNECTIONS))
    const traversals = await traversalAt20And60(processes, { off, wide, bareWide })

    const failed = (results: Result[]) => results.reduce((sum, r) => sum + r.failures, 0)
    const figures: Figures = {
      at0,
      at20,
      traversal60: traversals.at60,
      memory: memory.figures,
      failures: failed(at0) + memory.failures + failed(at20) + traversals.failures,
    }
    return summaryOf(figures)
  } finally {
    await processes.stopAll()
  }
}

/** 1 at 0 ms: every target, direct REST first (the reference). */
async function oneCompanyAt0(
  demo: Child,
  demoUrl: string,
  { off, on, info, bare }: Record<'off' | 'on' | 'info' | 'bare', Server>,
): Promise<Result[]> {
  printOneCompanyTitle(0, OPS_0MS)
  console.log(
    `  same data from gateway, bare yoga and REST (20 companies): ${(await sameAnswers(off.origin, bare.origin, demoUrl)) ? 'yes' : 'NO'}`,
  )
  const targets = [
    directTarget(demoUrl, DIRECT_OPS_FACTOR_0MS),
    graphqlTarget('bare graphql-yoga', bare.origin, bare.child),
    graphqlTarget('gateway, cache off', off.origin, off.child),
    graphqlTarget('gateway, cache on (warm)', on.origin, on.child),
    graphqlTarget('gateway, cache off, LOG_LEVEL=info', info.origin, info.child),
  ]
  return compareAndPrint(targets, OPS_0MS, demo, WARM_UP_MS_0MS)
}

/** 2: a fresh gateway's VmRSS when ready and after RSS_OPS operations; it is stopped after. */
async function gatewayMemory(demo: Child, fresh: Server) {
  await sleep(500)
  const atStart = memoryOf(fresh.child.pid).rss
  const target = graphqlTarget('gateway (fresh), cache off', fresh.origin, fresh.child)
  const round = await measure(target, RSS_OPS, demo, 0)
  await target.close()
  const after = memoryOf(fresh.child.pid)
  await fresh.child.stop()
  console.log(
    `\n2. gateway memory: a fresh gateway (cache off), 0 ms latency: VmRSS ${mib(atStart)} when ready, ${mib(after.rss)} after ${round.ops} one-company operations (${CONCURRENCY} in flight: ${round.rate.toFixed(0)} ops/s, ${fixed(round.cpuPerOp, 3)} CPU ms/op, p50 ${round.p50.toFixed(1)} ms, p99 ${round.p99.toFixed(1)} ms, ${round.failures} failed); peak VmHWM ${mib(after.peak)}`,
  )
  for (const failure of round.firstFailures) console.log(`  failed: ${failure}`)
  return { figures: { atStart, after }, failures: round.failures }
}

/** 1 at 20 ms: with a bare yoga server that keeps its answers in memory besides. */
async function oneCompanyAt20(
  demo: Child,
  demoUrl: string,
  { off, on, bare, bareKeeping }: Record<'off' | 'on' | 'bare' | 'bareKeeping', Server>,
): Promise<Result[]> {
  printOneCompanyTitle(20, OPS_20MS)
  const targets = [
    directTarget(demoUrl),
    graphqlTarget('bare graphql-yoga', bare.origin, bare.child),
    graphqlTarget('bare graphql-yoga, answers in memory', bareKeeping.origin, bareKeeping.child),
    graphqlTarget('gateway, cache off', off.origin, off.child),
    graphqlTarget('gateway, cache on (warm)', on.origin, on.child),
  ]
  return compareAndPrint(targets, OPS_20MS, demo, WARM_UP_MS_20MS)
}

function printOneCompanyTitle(latencyMs: number, total: number) {
  console.log(
    `\n1. one-company query, ${latencyMs} ms upstream latency, ${ROUNDS} rounds × ${total} operations per target`,
  )
}

/** `compare`'s rounds, printed; the targets are closed after. */
async function compareAndPrint(targets: Target[], total: number, demo: Child, warmUpMs: number) {
  const results = await compare(targets, total, demo, warmUpMs)
  for (const target of targets) await target.close()
  printResults(results)
  return results
}

/** 3: the traversal at 20 ms (the demo as it is), then at 60 ms (the demo restarted). */
async function traversalAt20And60(
  processes: Processes,
  { off, wide, bareWide }: Record<'off' | 'wide' | 'bareWide', Server>,
): Promise<{ at60: Traversal[]; failures: number }> {
  const direct = directTraversal(processes.demoUrl)
  let failures = 0
  const traverse = async () => {
    const traversals = [
      await traversal(off.origin, 'gateway, 32 connections (default)'),
      await traversal(wide.origin, `gateway, ${TRAVERSAL_CONNECTIONS} connections`),
      await traversal(bareWide.origin, `bare graphql-yoga, ${TRAVERSAL_CONNECTIONS} connections`),
      await direct.run(),
    ]
    failures += traversals.reduce((sum, t) => sum + t.failures.length, 0)
    return traversals
  }
  const same = await sameTraversal(wide.origin, bareWide.origin)
  if (!same) failures++
  console.log(`\n3. same traversal data from the gateway and bare yoga: ${same ? 'yes' : 'NO'}`)
  printTraversals(20, await traverse())
  await processes.demoAt(60)
  const at60 = await traverse()
  printTraversals(60, at60)
  await direct.close()
  return { at60, failures }
}
