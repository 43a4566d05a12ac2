import { getVariableValues, parse } from 'graphql'
import { loadConfig } from '../src/config.js'
import { estimateOperation, operationOf } from '../src/cost.js'
import { DemoData } from '../src/demo-upstream/data.js'
import { schema } from '../src/schema/index.js'
import { createGateway } from '../src/yoga.js'
import { startDemoThread } from './demo-thread.js'

/**
 * `npm run bench`: measured figures, never asserted. The demo upstream runs on its own thread
 * (loopback HTTP), as a real upstream runs elsewhere. Bounded: a fixed number of operations per
 * scenario, then it stops (about a minute).
 *
 * 1. The frontend traversal (list → 40 companies → financials + 3 lookalikes { name financials }
 *    + shareholders { company { name } }) at 0, 20 and 50 ms upstream latency, with the default
 *    UPSTREAM_MAX_CONNECTIONS (32) and with enough for no queueing (512); its wall time over
 *    (dependent round trips × latency).
 * 2. Throughput of a small query (a company's name and 5 full statements), 20 in flight.
 * 3. Fairness: a one-company query alone, then while another caller runs 8 traversals at once.
 * 4. The estimate of a query whose fragments spread each other (2^60 paths when expanded).
 */

const TRAVERSAL = `query Traversal($listId: Int!, $companies: Int!) {
  list(listId: $listId) {
    name
    companies(first: $companies) {
      edges {
        matchedSince
        node {
          name
          financials(first: 1) { nodes { endDate profitability { revenue } } }
          lookalikes(first: 3) { edges { score node { name financials(first: 1) { nodes { endDate } } } } }
          shareholders { percentage company { name } }
        }
      }
    }
  }
}`
/** list details → its companies → their own reads → the lookalikes' statements. */
const TRAVERSAL_ROUND_TRIPS = 4

const SMALL = `query CompanyFinancials($country: Country!, $number: String!) {
  company(country: $country, number: $number) {
    name
    financials(first: 5) {
      nodes {
        startDate endDate dateReceived healthIndicator jointCommitteeCodes
        profitability { revenue grossMargin ebitda ebit netProfit }
        liquidity { cash cashFlow netWorkingCapital netWorkingCapitalRequirement currentRatio quickRatio }
        solvency { totalAssets equity capital retainedEarnings debt longTermDebt shortTermDebt }
        people { employees newHires employeeMaleRatio employeeFemaleRatio }
      }
    }
  }
}`

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

async function run(
  gateway: ReturnType<typeof gatewayWith>,
  query: string,
  variables: object,
  caller = 'bench',
) {
  const response = await gateway.yoga.fetch('http://bench/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${caller}` },
    body: JSON.stringify({ query, variables }),
  })
  const body = (await response.json()) as { errors?: unknown[] }
  if (body.errors) throw new Error(`errors: ${JSON.stringify(body.errors).slice(0, 300)}`)
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0
const ms = (value: number, width = 8) => value.toFixed(0).padStart(width)
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`
async function timed(times: number, once: () => Promise<unknown>) {
  const durations: number[] = []
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    await once()
    durations.push(performance.now() - started)
  }
  return durations.sort((a, b) => a - b)
}

console.log(`node ${process.version}, demo upstream on a worker thread at ${demo.url}\n`)
console.log(
  `1. traversal (list → 40 companies → financials + lookalikes(3) { name financials } + shareholders), ${TRAVERSAL_ROUND_TRIPS} dependent round trips`,
)
console.log(
  'latency  connections  runs   calls/op   min ms   median ms   p90 ms   median / (round trips × latency)',
)
for (const maxConnections of [32, 512]) {
  const gateway = gatewayWith(maxConnections)
  for (const latency of [0, 20, 50]) {
    await demo.setLatency(0)
    for (let i = 0; i < 3; i++) await run(gateway, TRAVERSAL, { listId, companies: 40 }) // warm-up
    const runs = latency === 0 ? 30 : 10
    let calls = 0
    const times = await timed(runs, async () => {
      await demo.reset()
      await demo.setLatency(latency)
      await run(gateway, TRAVERSAL, { listId, companies: 40 })
      calls = (await demo.calls()).length
    })
    const median = percentile(times, 0.5)
    const ratio = latency === 0 ? '' : (median / (TRAVERSAL_ROUND_TRIPS * latency)).toFixed(2)
    console.log(
      `${String(latency).padStart(5)} ms ${String(maxConnections).padStart(12)} ${String(runs).padStart(6)} ${String(calls).padStart(10)} ${ms(times[0] ?? 0)} ${ms(median, 11)} ${ms(percentile(times, 0.9))}   ${ratio}`,
    )
  }
  await gateway.close()
}

console.log('\n2. small query (company name + 5 full statements), 20 in flight, 0 ms latency')
{
  await demo.reset()
  const gateway = gatewayWith(32)
  const companies = data.companies.slice(0, 500)
  const total = 4000
  let next = 0
  const started = performance.now()
  const worker = async () => {
    while (next < total) {
      const company = companies[next++ % companies.length]
      await run(gateway, SMALL, { country: company?.country, number: company?.companyNumber })
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

console.log(
  '\n3. fairness: one caller’s small query, alone and while another caller runs 8 traversals at once (20 ms latency, 32 connections)',
)
{
  await demo.reset()
  await demo.setLatency(20)
  const gateway = gatewayWith(32)
  const [company] = data.companies
  const small = () =>
    run(gateway, SMALL, { country: company?.country, number: company?.companyNumber }, 'light')
  await small()
  const alone = await timed(10, small)
  let busy = true
  const heavy = (async () => {
    while (busy) {
      await Promise.all(
        Array.from({ length: 8 }, () =>
          run(gateway, TRAVERSAL, { listId, companies: 40 }, 'heavy'),
        ),
      )
    }
  })()
  const loaded = await timed(10, small)
  busy = false
  await heavy
  const alonePart = percentile(alone, 0.5)
  const loadedPart = percentile(loaded, 0.5)
  console.log(
    `median alone ${ms(alonePart, 1)} ms, under load ${ms(loadedPart, 1)} ms (× ${(loadedPart / alonePart).toFixed(1)}); worst under load ${ms(loaded.at(-1) ?? 0, 1)} ms`,
  )
  await gateway.close()
}

console.log('\n4. estimate of a query whose fragments spread each other (60 levels, 2^60 paths)')
{
  let fragments =
    'fragment A0 on Company { financials(first: 1) { totalCount } } fragment B0 on Company { name }'
  for (let i = 1; i <= 60; i++) {
    fragments += ` fragment A${i} on Company { ...A${i - 1} ...B${i - 1} } fragment B${i} on Company { ...B${i - 1} ...A${i - 1} }`
  }
  const source = `{ company(country: BE, number: "0922178703") { ...A60 ...B60 } } ${fragments}`
  const document = parse(source)
  const operation = operationOf(document, undefined)
  if (!operation) throw new Error('no operation')
  const variables = getVariableValues(schema, [], {}).coerced ?? {}
  const times = await timed(20, async () =>
    estimateOperation(schema, document, operation, variables),
  )
  console.log(
    `${source.length} bytes, estimate ${estimateOperation(schema, document, operation, variables).calls} call(s): median ${percentile(times, 0.5).toFixed(2)} ms, max ${(times.at(-1) ?? 0).toFixed(2)} ms (uncached)`,
  )
}
await demo.stop()
