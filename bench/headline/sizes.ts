/** Sizes of the headline: it takes about 2.5 minutes on a 2-core machine. */

/** Operations in flight, for every target. */
export const CONCURRENCY = 16
/** Measured rounds of each load; the figures are their medians. */
export const ROUNDS = 3
/** Operations per measured round, at 0 ms and at 20 ms upstream latency. */
export const OPS_0MS = 4000
export const OPS_20MS = 2000
/**
 * Direct REST's rounds at 0 ms are this many times longer: it runs 10–20 × faster, and a round
 * of a third of a second is mostly noise.
 */
export const DIRECT_OPS_FACTOR_0MS = 5
/**
 * Warm-up of each target before its first round: at least this long (the gateway's JIT needs
 * about 3,000 operations) and at least one operation per company (which fills the cache where
 * it is on). Shorter at 20 ms: the processes are warm by then.
 */
export const WARM_UP_MS_0MS = 4000
export const WARM_UP_MS_20MS = 1000
/** Companies the one-company operations cycle over (spread over the whole data set). */
export const COMPANY_SPREAD = 400
/** A round stops starting operations after this long, whatever its size. */
export const ROUND_MAX_MS = 60_000
/**
 * Traversal runs (one at a time) per latency and connection setting, after TRAVERSAL_WARM_UPS:
 * a fresh process takes about ten traversals before V8 has compiled their path (measured: the
 * first runs after 3 warm-ups were 15–25 % slower than the rest).
 */
export const TRAVERSAL_RUNS = 7
export const TRAVERSAL_WARM_UPS = 10
/**
 * Upstream connections where the traversal's target is measured: enough for a whole level at
 * once. With the default 32, 227 reads need at least 227 ÷ 32 latencies whatever the gateway
 * does (the summary prints that floor).
 */
export const TRAVERSAL_CONNECTIONS = 512
/** Operations before the gateway's second RSS reading. */
export const RSS_OPS = 10_000
/** The gateway's log level: production logs warnings (LOG_LEVEL=info is measured too, at 0 ms). */
export const LOG_LEVEL = 'warn'
