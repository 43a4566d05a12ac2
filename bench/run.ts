import { cpus, loadavg } from 'node:os'
import { startDemoThread } from './demo-thread.js'
import { runFailurePaths } from './failure-paths.js'
import { printSummary } from './headline/report.js'
import { runHeadline } from './headline.js'
import { runInProcess } from './in-process.js'
import { runReadPath } from './read-path.js'
import { replicas } from './replicas.js'

/**
 * `npm run bench`: measured figures, never asserted (about 3 minutes on a 2-core machine).
 * `npm run bench -- --only=headline` runs scenarios 1–3 only, `--only=in-process` 4–10 only,
 * `--only=failure-paths` 9–10 only, `--only=replicas` 8 only.
 *
 * Headline (bench/headline.ts), the gateway the way users feel it: demo upstream, gateway and a
 * bare graphql-yoga baseline each in a process of their own over loopback HTTP, the load from
 * this process; a summary compares the medians with the targets at the end.
 *
 * 1. The one-company query (name, place, 5 full financial periods) at 0 and 20 ms injected
 *    upstream latency: gateway with the cache off and on (warm), bare graphql-yoga
 *    (bench/bare-yoga.ts) and direct REST (the same upstream read sent straight to the demo);
 *    ops/s at a fixed concurrency (median of 3 interleaved rounds), ratio to direct REST, p50/p99
 *    latency, CPU ms per operation of each server process (/proc/<pid>/stat).
 * 2. The gateway's VmRSS when ready and after 10,000 one-company operations (cache off).
 * 3. The frontend traversal (list → 40 companies → financials + 3 lookalikes { name financials }
 *    + shareholders { company { name } }) at 20 and 60 ms latency, cache off: its wall time over
 *    (3 × latency), the three dependent levels the target counts, through the gateway (32 and
 *    512 upstream connections), bare graphql-yoga with the same schema shape, and direct REST
 *    (the same reads sent from this process, each as soon as its input is in hand: the floor).
 *
 * In process (bench/in-process.ts: the gateway through `yoga.fetch`, the demo upstream on a worker thread, loopback
 * HTTP), with the cross-operation cache off (CACHE_TTL_SECONDS=0) unless said:
 *
 * 4. Fairness: a one-company query alone, then while another caller runs 8 traversals at once.
 * 5. The estimate of a query whose fragments spread each other (2^60 paths when expanded).
 * 6. Cache: a mixed workload at 20 ms upstream latency: 8 callers (different Authorization, one
 *    UPSTREAM_TOKEN, so one shared cache) each read their lists, then page 2–3 lists 3 pages deep
 *    (some on the same lists, some on shifted, overlapping pages, a few revisits), all at once;
 *    upstream calls and wall time without and with the cache, responses compared.
 * 7. Fair shares (bench/fair-shares.ts): a light caller's one-read query alone and under another
 *    caller's load: 30 operations (one token, then 30 made-up tokens), behind a queued shared
 *    read, after a burst under UPSTREAM_RATE_LIMIT.
 * 8. Redis and replicas (bench/replicas.ts, needs redis-server): the traversal's time without
 *    Redis, with Redis at 0 ms and 120 ms (a delaying proxy), and stopped; upstream calls and
 *    Redis commands per call for 5 identical traversals at once on each of 1, 2 and 4 replicas.
 * 9. @defer (bench/failure-paths.ts): when the first part and the whole of a company page arrive
 *    while its deferred read takes 2.5 s.
 * 10. An upstream that answers only 503: upstream requests for 25 reads, with stale entries,
 *    nothing cached, and circuits off.
 *
 * Read path (bench/read-path.ts, `--only=read-path`, also run after the headline): CPU per
 * upstream read in the traversal against a bare undici + JSON.parse floor (bench/floor.ts) in the
 * same run, and CPU per one-company operation and resident memory after that load against bare
 * graphql-yoga.
 */

const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length)
const parts = ['headline', 'in-process', 'failure-paths', 'read-path', 'replicas']
if (only !== undefined && !parts.includes(only)) {
  console.error(`unknown --only=${only}: use --only=${parts.join(', --only=')}`)
  process.exit(2)
}

console.log(
  `node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()
    .map((v) => v.toFixed(2))
    .join(' ')} (1, 5, 15 min) at start`,
)
if (only === 'failure-paths') {
  await runFailurePaths()
  process.exit(0)
}
if (only === 'read-path') {
  await runReadPath()
  process.exit(0)
}
if (only === 'replicas') {
  const demo = await startDemoThread()
  await replicas(demo)
  await demo.stop()
  process.exit(0)
}
const summary = only === 'in-process' ? [] : await runHeadline()
if (only === undefined) await runReadPath()
if (only !== 'headline') await runInProcess()
if (summary.length > 0) printSummary(summary)
