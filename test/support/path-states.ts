import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse, print } from 'graphql'
import { afterAll, expect } from 'vitest'
import type { Fault } from '../../src/demo-upstream/faults.js'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { MAX_DIRECTIVES } from '../../src/operation/shape-limits.js'
import { schema } from '../../src/schema/index.js'
import { deferEverywhere } from './defer-everywhere.js'
import { START } from './demo-answers.js'
import { multipartParts, reassemble } from './incremental.js'
import { REDIS_SKIP_REASON, redisAvailable, startRedis } from './redis.js'
import { type Client, startStack } from './stack.js'

/**
 * The same operation answered by gateways in every state a caller may meet, which must all give
 * the same answer: the cache off; the cache on, cold and then warm; two replicas sharing a real
 * Redis, the second reading what the first stored; the operation split by @defer and @stream
 * and put back together; the operation sent as a persisted document. Compared: the data, the
 * HTTP status and the errors (as a set: GraphQL does not order them), each with its message,
 * path and extensions but not its locations, which point into the document sent (another one on
 * the @defer path); and the upstream calls, as far as the paths promise the same. Not compared:
 * the response's extensions (cost, cache), which tell how the answer was got.
 *
 * The cached gateways live as long as the test file: each operation comes from a caller (an
 * upstream token) they have never seen, and the cache keeps every caller's reads apart, so it
 * is cold for that operation (in process and in Redis) however many came before.
 */

export interface Operation {
  query: string
  variables?: Record<string, unknown>
}

export interface PathError {
  message: string
  /** Its extensions' code, for the tests to read. */
  code: unknown
  path?: (string | number)[]
  /** Every extension, the code's included. */
  extensions?: Record<string, unknown>
}

/** An answer reduced to what every path must agree on. */
export interface PathAnswer {
  status: number
  data: unknown
  errors: PathError[]
}

interface Sent {
  path: string
  answer: PathAnswer
  requestId: string
  /** Answered in parts (multipart/mixed). */
  multipart: boolean
}

const CACHE_ON = { cacheTtlSeconds: 300 }
/** Callers the demo upstream knows: one for each operation of a test file, at most. */
const CALLERS = 20_000

/** The operation as failure messages show it: its text, then its variables. */
export const describeOperation = ({ query, variables }: Operation) =>
  `${query}${variables ? `\nvariables: ${JSON.stringify(variables)}` : ''}`

interface Body {
  data?: unknown
  errors?: { message: string; path?: PathError['path']; extensions?: Record<string, unknown> }[]
}

function normalised(status: number, body: Body): PathAnswer {
  const errors = (body.errors ?? [])
    .map(({ message, path, extensions }) => ({ message, code: extensions?.code, path, extensions }))
    .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))
  return { status, data: body.data, errors }
}

/**
 * The gateways of every path, on one demo upstream whose clock stands still (a volatile
 * contactId must not change between two paths), for one test file; closed after it.
 */
export async function startPathStates() {
  const callers = Array.from({ length: CALLERS }, (_, i) => `caller-${i}`)
  const stack = await startStack({}, { now: () => START, tokens: [DEMO_TOKEN, ...callers] })
  const redis = redisAvailable ? await startRedis() : undefined
  const cached = stack.replica(CACHE_ON)
  const replicas = redis
    ? ([1, 2].map(() => stack.replica({ ...CACHE_ON, redisUrl: redis.url })) as [Client, Client])
    : undefined
  const dir = mkdtempSync(join(tmpdir(), 'path-states-'))
  const manifest = join(dir, 'manifest.json')
  /** The gateway whose manifest holds the last document sent as a persisted one. */
  let persisted: { query: string; client: Client } | undefined
  afterAll(async () => {
    await redis?.stop()
    rmSync(dir, { recursive: true, force: true })
  })
  let sent = 0
  let operations = 0

  async function send(
    client: Client,
    path: string,
    body: object,
    { token = DEMO_TOKEN, deferred = false } = {},
  ): Promise<Sent> {
    const requestId = `${path.replace(/\W+/g, '-')}.${++sent}`
    const response = await client.request({
      headers: {
        // As Apollo Client and urql ask: parts if the operation has any, else one JSON answer
        // (and the status codes of application/json, as on the other paths).
        accept: deferred ? 'multipart/mixed, application/json' : 'application/json',
        authorization: `Bearer ${token}`,
        'x-request-id': requestId,
      },
      body,
    })
    const multipart = response.headers.get('content-type')?.startsWith('multipart/mixed') ?? false
    const result = multipart ? reassemble(multipartParts(response)) : response.json<Body>()
    return { path, answer: normalised(response.status, result), requestId, multipart }
  }

  /** A gateway whose manifest holds `query` (the last one made, if it does). */
  async function persistedGateway(query: string) {
    if (persisted?.query === query) return persisted.client
    await persisted?.client.close()
    const documentId = idOf(query)
    writeFileSync(manifest, JSON.stringify({ [documentId]: query }))
    persisted = { query, client: stack.replica({ persistedDocuments: manifest }) }
    return persisted.client
  }
  const idOf = (query: string) => `sha256:${createHash('sha256').update(query).digest('hex')}`

  /** Every path, each answering once, but the cold and the first replica's, then the warm. */
  async function answerOnEveryPath(operation: Operation): Promise<Sent[]> {
    const caller = callers[operations++]
    if (!caller) throw new Error(`more than ${CALLERS} operations in one test file`)
    const token = { token: caller }
    const answers = [
      await send(stack, 'cache off', operation),
      await send(cached, 'cache on, cold', operation, token),
      await send(cached, 'cache on, warm', operation, token),
    ]
    if (replicas) {
      answers.push(await send(replicas[0], 'replica A, Redis cold', operation, token))
      answers.push(await send(replicas[1], 'replica B, from Redis', operation, token))
    }
    const { query, variables } = operation
    const document = parse(query)
    const split = print(deferEverywhere(schema, document, MAX_DIRECTIVES))
    const inParts = await send(
      stack,
      '@defer/@stream',
      { query: split, variables },
      { deferred: true },
    )
    // An operation that ran was split into parts unless it left no room for a @defer.
    if (inParts.answer.data !== undefined && split !== print(document)) {
      expect(inParts.multipart, `${split}\nwas answered in one part`).toBe(true)
    }
    answers.push(
      inParts,
      await send(await persistedGateway(query), 'persisted document', {
        documentId: idOf(query),
        variables,
      }),
    )
    return answers
  }

  /**
   * The upstream calls each answer caused (each as its path and query), and how many of them
   * failed (and so were not cached).
   */
  function callsOf(answers: Sent[]) {
    const byRequest = new Map<string, { made: number; failed: number; reads: string[] }>()
    const none = () => ({ made: 0, failed: 0, reads: [] })
    for (const { requestId, status, path, query } of stack.demo.calls()) {
      const tally = byRequest.get(requestId ?? '') ?? none()
      tally.made++
      if (status !== 200) tally.failed++
      tally.reads.push(`${path}?${new URLSearchParams(Object.entries(query).sort())}`)
      byRequest.set(requestId ?? '', tally)
    }
    return (path: string) =>
      byRequest.get(answers.find((a) => a.path === path)?.requestId ?? '') ?? none()
  }

  /** The reads of `reads` that `others` does not hold (as many times as it does not). */
  function beyond(reads: string[], others: string[]) {
    const left = [...reads]
    for (const read of others) {
      const at = left.indexOf(read)
      if (at >= 0) left.splice(at, 1)
    }
    return left
  }

  /**
   * Answers `operation` on every path, one after the other, checks that they agree, and returns
   * the answer. Also checks the upstream calls: the warm cache and the second replica read again
   * only what the cold one failed to read, and the parts of @defer/@stream read nothing the
   * whole does not.
   */
  /** Redis commands that failed or timed out on the replicas so far (their metric). */
  const redisFailures = async () => {
    let failures = 0
    for (const replica of replicas ?? []) {
      failures += (await replica.gateway.metrics.redisFailures.get()).values[0]?.value ?? 0
    }
    return failures
  }

  async function answer(operation: Operation): Promise<PathAnswer> {
    const failuresBefore = await redisFailures()
    const answers = await answerOnEveryPath(operation)
    // A Redis too slow for its short timeout is read around, straight from the upstream, as the
    // contract asks (a loaded machine can make it so): then replica B may read again, and only
    // its answer is compared.
    const redisAnswered = (await redisFailures()) === failuresBefore
    const [reference, ...others] = answers as [Sent, ...Sent[]]
    const shown = describeOperation(operation)
    for (const other of others) {
      expect(other.answer, `${other.path} differs from ${reference.path} for\n${shown}\n`).toEqual(
        reference.answer,
      )
    }
    const calls = callsOf(answers)
    const pairs = [
      ['cache on, cold', 'cache on, warm'],
      ['replica A, Redis cold', 'replica B, from Redis'],
    ] as const
    const compared = pairs.filter(
      ([, warm]) =>
        answers.some((a) => a.path === warm) && (redisAnswered || !warm.includes('Redis')),
    )
    for (const [cold, warm] of compared) {
      const { made, failed } = calls(cold)
      expect(
        calls(warm).made,
        `upstream calls of ${warm} (${cold}: ${made}, ${failed} failed) for\n${shown}\n`,
      ).toBeLessThanOrEqual(failed)
    }
    // The parts read what the whole reads: @defer decides only when a part is sent.
    const whole = calls('cache off').reads
    expect(
      beyond(calls('@defer/@stream').reads, whole),
      `upstream calls of @defer/@stream beyond the whole's (${whole.join(', ')}) for\n${shown}\n`,
    ).toEqual([])
    return reference.answer
  }

  /** Runs `during` while the upstream answers what `fault` matches as it says; then no fault. */
  async function whileFaulty<T>(fault: Fault, during: () => Promise<T>): Promise<T> {
    stack.demo.inject(fault)
    try {
      return await during()
    } finally {
      stack.demo.configure(stack.demo.faultSettings)
    }
  }

  return {
    answer,
    whileFaulty,
    /** The paths compared, for test titles (Redis's only where redis-server is installed). */
    title: redis ? 'every path' : `every path but Redis's (${REDIS_SKIP_REASON})`,
  }
}

export type PathStates = Awaited<ReturnType<typeof startPathStates>>
