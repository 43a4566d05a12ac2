import { cpus } from 'node:os'
import type { Result } from './measure.js'
import {
  CONCURRENCY,
  RSS_OPS,
  TRAVERSAL_CONNECTIONS,
  TRAVERSAL_RUNS,
  TRAVERSAL_WARM_UPS,
} from './sizes.js'
import type { Traversal } from './traversal.js'

/** What the headline prints: a table per measurement, and the summary against the targets. */

export interface SummaryRow {
  what: string
  target: string
  measured: string
  pass?: boolean
}

/** What the summary is made of. */
export interface Figures {
  at0: Result[]
  at20: Result[]
  traversal60: Traversal[]
  /** The fresh gateway's VmRSS when ready, and VmRSS and VmHWM after RSS_OPS operations. */
  memory: { atStart: number; after: { rss: number; peak: number } }
  /** Failed operations (errors, wrong answers) over the whole headline. */
  failures: number
}

export const pad = (value: string | number, width: number) => String(value).padStart(width)
export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`
export const fixed = (value: number | undefined, digits: number) =>
  value === undefined ? '-' : value.toFixed(digits)

export function printResults(results: Result[]) {
  console.log(
    `  ${'target'.padEnd(38)} ${'ops/s per round'.padEnd(21)} ${pad('median', 6)} ${pad('× direct', 8)} ${pad('p50 ms', 6)} ${pad('p99 ms', 6)} ${pad('CPU ms/op', 9)} ${pad('demo', 5)} ${pad('load', 5)} ${pad('failed', 6)}`,
  )
  for (const r of results) {
    const perRound = r.rounds.map((x) => pad(x.rate.toFixed(0), 7)).join('')
    console.log(
      `  ${r.name.padEnd(38)} ${perRound.padEnd(21)} ${pad(r.rate.toFixed(0), 6)} ${pad(r.ratio.toFixed(2), 8)} ${pad(r.p50.toFixed(1), 6)} ${pad(r.p99.toFixed(1), 6)} ${pad(fixed(r.cpuPerOp, 3), 9)} ${pad(r.demoCpuPerOp.toFixed(2), 5)} ${pad(r.loadCpuPerOp.toFixed(2), 5)} ${pad(r.failures, 6)}`,
    )
  }
  for (const r of results) {
    for (const failure of r.firstFailures) console.log(`  ${r.name} failed: ${failure}`)
  }
}

export function printTraversals(latencyMs: number, traversals: Traversal[]) {
  console.log(
    `\n3. traversal (list → 40 companies → financials + lookalikes(3) { name financials } + shareholders), ${latencyMs} ms upstream latency, cache off, ${TRAVERSAL_RUNS} runs one at a time after ${TRAVERSAL_WARM_UPS} warm-ups; wall ms`,
  )
  console.log(
    `  ${'target'.padEnd(38)} ${pad('calls', 6)} ${pad('min', 6)} ${pad('median', 6)} ${pad('max', 6)} ${pad('÷ (3 × latency)', 16)} ${pad('failed', 6)}`,
  )
  for (const t of traversals) {
    const sorted = [...t.runs].sort((a, b) => a - b)
    console.log(
      `  ${t.label.padEnd(38)} ${pad(Number.isNaN(t.calls) ? '-' : t.calls, 6)} ${pad((sorted[0] ?? 0).toFixed(0), 6)} ${pad(t.median.toFixed(0), 6)} ${pad((sorted.at(-1) ?? 0).toFixed(0), 6)} ${pad((t.median / (3 * latencyMs)).toFixed(2), 16)} ${pad(t.failures.length, 6)}`,
    )
    for (const failure of t.failures.slice(0, 3)) console.log(`  ${t.label} failed: ${failure}`)
  }
}

/** The summary's rows: the medians against the targets, and reference figures beside them. */
export function summaryOf(figures: Figures): SummaryRow[] {
  const { atStart, after } = figures.memory
  return [
    ...oneCompanyAt0(figures.at0),
    ...traversalAt60(figures.traversal60),
    ...oneCompanyAt20(figures.at20),
    {
      what: `gateway VmRSS: when ready → after ${RSS_OPS} one-company operations`,
      target: 'reference',
      measured: `${mib(atStart)} → ${mib(after.rss)} (peak ${mib(after.peak)})`,
    },
    {
      what: 'failed operations (errors, wrong answers), whole headline',
      target: '0',
      measured: String(figures.failures),
      pass: figures.failures === 0,
    },
  ]
}

/** Prints the summary rows as a table. */
export function printSummary(summary: SummaryRow[]) {
  console.log('\nSUMMARY (headline; medians; cache off unless said)')
  const width = Math.max(...summary.map((row) => row.what.length))
  console.log(
    `${'measure'.padEnd(width)}  ${'target'.padEnd(11)}  ${'measured'.padEnd(44)}  result`,
  )
  for (const row of summary) {
    const result = row.pass === undefined ? '' : row.pass ? 'PASS' : 'FAIL'
    console.log(
      `${row.what.padEnd(width)}  ${row.target.padEnd(11)}  ${row.measured.padEnd(44)}  ${result}`,
    )
  }
}

const find = (results: Result[], name: string) => results.find((r) => r.name === name)

function oneCompanyAt0(at0: Result[]): SummaryRow[] {
  const off0 = find(at0, 'gateway, cache off')
  const bare0 = find(at0, 'bare graphql-yoga')
  const direct0 = at0.find((r) => r.name.startsWith('direct REST'))
  if (!off0 || !bare0 || !direct0) return []
  // The CPU time per operation a server may use for 0.40 × direct REST's rate on this machine:
  // one thread (1 / rate), and the cores shared with the demo and the load.
  const rate = 0.4 * direct0.rate
  const allowed = Math.min(
    1000 / rate,
    (cpus().length * 1000) / rate - off0.demoCpuPerOp - off0.loadCpuPerOp,
  )
  return [
    {
      what: 'one-company, 0 ms, cache off: gateway ops/s ÷ direct REST',
      target: '≥ 0.40',
      measured: off0.ratio.toFixed(2),
      pass: off0.ratio >= 0.4,
    },
    {
      what: 'one-company, 0 ms: bare graphql-yoga ÷ direct REST',
      target: 'reference',
      measured: bare0.ratio.toFixed(2),
    },
    {
      what: 'one-company, 0 ms: gateway (cache off) ops/s ÷ bare graphql-yoga',
      target: 'reference',
      measured: (off0.rate / bare0.rate).toFixed(2),
    },
    {
      what: 'one-company, 0 ms: CPU ms/op, gateway (cache off) | bare yoga',
      target: 'reference',
      measured: `${fixed(off0.cpuPerOp, 3)} | ${fixed(bare0.cpuPerOp, 3)}`,
    },
    {
      what: 'one-company, 0 ms: CPU ms/op a server may use for 0.40 × direct REST',
      target: 'reference',
      measured: `${allowed.toFixed(3)} (${cpus().length} cores shared with the demo and the load)`,
    },
    {
      what: `one-company, 0 ms: p50 | p99 ms at ${CONCURRENCY} in flight, gateway (cache off)`,
      target: 'reference',
      measured: `${off0.p50.toFixed(1)} | ${off0.p99.toFixed(1)}`,
    },
  ]
}

/** `traversal60`: the gateway with 32 and with TRAVERSAL_CONNECTIONS, bare yoga, direct REST. */
function traversalAt60(traversal60: Traversal[]): SummaryRow[] {
  const [default60, wide60, bare60, direct60] = traversal60
  const perLevels = (t: Traversal) => t.median / (3 * 60)
  const rows: SummaryRow[] = []
  if (wide60) {
    rows.push({
      what: `traversal, 60 ms, cache off, ${TRAVERSAL_CONNECTIONS} connections: wall ÷ (3 × 60 ms)`,
      target: '≤ 1.15',
      measured: `${perLevels(wide60).toFixed(2)} (${wide60.median.toFixed(0)} ms)`,
      pass: perLevels(wide60) <= 1.15,
    })
  }
  if (bare60 && direct60) {
    rows.push({
      what: `traversal, 60 ms: bare graphql-yoga | direct REST (the floor), ${TRAVERSAL_CONNECTIONS} connections`,
      target: 'reference',
      measured: `${perLevels(bare60).toFixed(2)} | ${perLevels(direct60).toFixed(2)}`,
    })
  }
  if (default60) {
    // However fast the gateway, each connection carries one request per latency.
    const floor = (default60.calls * 60) / 32
    rows.push({
      what: 'traversal, 60 ms, 32 connections (default): wall ÷ (3 × 60 ms) | floor',
      target: 'reference',
      measured: `${perLevels(default60).toFixed(2)} | ${(floor / 180).toFixed(2)} (${default60.calls} reads × 60 ms ÷ 32)`,
    })
  }
  return rows
}

function oneCompanyAt20(at20: Result[]): SummaryRow[] {
  const on20 = find(at20, 'gateway, cache on (warm)')
  const keeping20 = find(at20, 'bare graphql-yoga, answers in memory')
  const rows: SummaryRow[] = []
  if (on20) {
    rows.push(
      {
        what: 'one-company, 20 ms, cache on (warm): gateway ops/s ÷ direct REST',
        target: '≥ 3',
        measured: on20.ratio.toFixed(2),
        pass: on20.ratio >= 3,
      },
      {
        what: 'one-company, 20 ms, cache on (warm): gateway CPU ms/op',
        target: 'reference',
        measured: fixed(on20.cpuPerOp, 3),
      },
    )
  }
  if (keeping20) {
    rows.push({
      what: 'one-company, 20 ms: bare graphql-yoga, answers in memory ÷ direct REST (CPU ms/op)',
      target: 'reference',
      measured: `${keeping20.ratio.toFixed(2)} (${fixed(keeping20.cpuPerOp, 3)})`,
    })
  }
  return rows
}
