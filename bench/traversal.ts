import { print } from 'graphql'
import { loadConfig } from '../src/config.js'
import { DemoData } from '../src/demo-upstream/data.js'
import { createGateway } from '../src/yoga.js'
import { CompanyFinancialsDocument, TraversalDocument } from '../test/gql/graphql.js'
import { startDemoThread } from '../test/support/demo-thread.js'

/**
 * `npm run bench`: measured figures for the gateway against the demo upstream on its own
 * thread (loopback HTTP). Bounded: a fixed number of operations per scenario, then it stops.
 *
 * 1. The frontend traversal (list → 40 companies → financials + 3 lookalikes { name financials }
 *    + shareholders { company { name } }) at 0 and 50 ms upstream latency, with the default
 *    UPSTREAM_MAX_CONNECTIONS (32) and with enough connections for no queueing (512).
 * 2. Throughput of a small query (a company's name and 5 full statements), 20 in flight.
 */

// The operations the tests send, so that the bench measures what the tests prove.
const TRAVERSAL = print(TraversalDocument)
const SMALL = print(CompanyFinancialsDocument)

const demo = await startDemoThread()
const data = new DemoData()
const listId = data.lists.find((l) => l.amountOfCompanies > 1000)?.id ?? 1001

function gatewayWith(maxConnections: number) {
  return createGateway({
    ...loadConfig({ NODE_ENV: 'production' }),
    upstreamUrl: demo.url,
    upstreamToken: 'demo-token',
    upstreamMaxConnections: maxConnections,
  })
}

async function run(gateway: ReturnType<typeof gatewayWith>, query: string, variables: object) {
  const response = await gateway.yoga.fetch('http://bench/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  })
  const body = (await response.json()) as { errors?: unknown[] }
  if (body.errors) throw new Error(`errors: ${JSON.stringify(body.errors).slice(0, 300)}`)
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`

console.log(`node ${process.version}, demo upstream on a worker thread at ${demo.url}\n`)
console.log(
  'traversal (list → 40 companies → financials + lookalikes(3) { name financials } + shareholders)',
)
console.log('latency  connections  runs   calls/op   min ms   median ms   p90 ms')
for (const maxConnections of [32, 512]) {
  const gateway = gatewayWith(maxConnections)
  for (const latency of [0, 50]) {
    await demo.setLatency(0)
    for (let i = 0; i < 3; i++) await run(gateway, TRAVERSAL, { listId, companies: 40 }) // warm-up
    await demo.setLatency(latency)
    const runs = latency === 0 ? 30 : 10
    const times: number[] = []
    let calls = 0
    for (let i = 0; i < runs; i++) {
      await demo.reset()
      await demo.setLatency(latency)
      const started = performance.now()
      await run(gateway, TRAVERSAL, { listId, companies: 40 })
      times.push(performance.now() - started)
      calls = (await demo.calls()).length
    }
    times.sort((a, b) => a - b)
    console.log(
      `${String(latency).padStart(5)} ms ${String(maxConnections).padStart(12)} ${String(runs).padStart(6)} ${String(calls).padStart(10)} ${percentile(times, 0).toFixed(0).padStart(8)} ${percentile(times, 0.5).toFixed(0).padStart(11)} ${percentile(times, 0.9).toFixed(0).padStart(8)}`,
    )
  }
  await gateway.close()
}

console.log('\nsmall query (company name + 5 full statements), 20 in flight, 0 ms latency')
{
  await demo.setLatency(0)
  const gateway = gatewayWith(32)
  const companies = data.companies.slice(0, 500)
  const total = 4000
  let next = 0
  const started = performance.now()
  const worker = async () => {
    while (next < total) {
      const company = companies[next++ % companies.length]
      await run(gateway, SMALL, {
        country: company?.country,
        number: company?.companyNumber,
        first: 5,
      })
    }
  }
  await Promise.all(Array.from({ length: 20 }, worker))
  const seconds = (performance.now() - started) / 1000
  const memory = process.memoryUsage()
  console.log(
    `${total} operations in ${seconds.toFixed(2)} s: ${(total / seconds).toFixed(0)} operations/s`,
  )
  console.log(
    `process memory after the run: rss ${mb(memory.rss)}, heap used ${mb(memory.heapUsed)} (gateway and benchmark; the demo runs on its own thread in the same process)`,
  )
  await gateway.close()
}
await demo.stop()
