import { describe, expect, it } from 'vitest'
import type { ReceivedCall } from '../../src/demo-upstream/server.js'
import { answerLoss } from '../support/answer-loss.js'
import { bigList, claes, companyArgs, michiels } from '../support/fixtures.js'
import { type Client, startStack } from '../support/stack.js'

/**
 * A failed read costs only the fields that needed it (contract v2): a list page of 12 companies
 * with their financials, lookalikes (their names and places: one read), shareholders and
 * contacts, answered again with one of its reads failing, keeps everything of the clean answer
 * outside the failed fields.
 */

const stack = await startStack()
const { demo } = stack

const PAGE = `{
  list(listId: ${bigList.id}) {
    name
    companies(first: 12) {
      totalCount
      edges {
        matchedSince
        node {
          number name place
          financials(first: 2) { totalCount nodes { endDate profitability { revenue } } }
          lookalikes(first: 2) { edges { score node { number name place } } }
          shareholders { name percentage company { number name } }
          contacts(first: 2) { totalCount nodes { firstName lastName jobTitle } }
        }
      }
    }
  }
}`

/** The statements reads of the page's members; any other names a lookalike, and only that. */
const MEMBER_STATEMENTS = new Set(
  bigList.members
    .slice(0, 12)
    .map(({ company: c }) => `/v1/companies/${c.country}/${c.companyNumber}/financials`),
)

/** What a read is, told by its path: one of each must be tried. */
function kindOf(call: ReceivedCall): string {
  if (/^\/v1\/lists\/\d+$/.test(call.path)) return 'list'
  if (call.path.endsWith('/companies')) return 'members'
  if (call.path.endsWith('/financials')) {
    return MEMBER_STATEMENTS.has(call.path) ? 'financials' : 'name'
  }
  return call.path.split('/').at(-1) ?? call.path
}

const KINDS = ['list', 'members', 'financials', 'lookalikes', 'relationships', 'contacts', 'name']

async function cleanAnswer() {
  const { body } = await stack.post(PAGE)
  expect(body.errors).toBeUndefined()
  const reads = new Map<string, string>()
  for (const call of demo.calls()) reads.set(call.path, kindOf(call))
  demo.reset()
  return { data: body.data, reads }
}

/** Answers the page with every request to `path` failing with `status`: the loss, the codes. */
async function faultedAt(path: string, status: number, clean: unknown) {
  demo.reset()
  demo.inject({ path, status })
  const { status: http, body } = await stack.post(PAGE)
  expect(http).toBe(200)
  expect(body.errors?.length).toBeGreaterThan(0)
  return { loss: answerLoss(clean, body), codes: body.errors?.map((e) => e.extensions?.code) }
}

describe('one failed read nulls only the fields that needed it', () => {
  it('a 503 on one read of each kind: nothing lost beyond the failed fields, no null without its error', async () => {
    const { data, reads } = await cleanAnswer()
    const firstOfKind = KINDS.map((kind) => [...reads].find(([, k]) => k === kind)?.[0])
    expect(firstOfKind.every((path) => path !== undefined)).toBe(true)
    for (const path of firstOfKind as string[]) {
      const { loss, codes } = await faultedAt(path, 503, data)
      expect({ path, ...loss }).toEqual({
        path,
        ...loss,
        lostBeyondErrors: [],
        nullsWithoutError: [],
        badErrors: [],
      })
      expect(new Set(codes)).toEqual(new Set(['UPSTREAM_ERROR']))
    }
  })

  it('a failure on every read of the traversal, one at a time: 0 leaves lost beyond the failed fields', async () => {
    const { data, reads } = await cleanAnswer()
    expect(new Set(reads.values())).toEqual(new Set(KINDS))
    let leaves = 0
    const beyond: string[] = []
    const without: string[] = []
    // 500 is not retried: every read of the page, quickly.
    for (const path of reads.keys()) {
      const { loss } = await faultedAt(path, 500, data)
      leaves += loss.leaves
      beyond.push(...loss.lostBeyondErrors.map((leaf) => `${path}: ${leaf}`))
      without.push(...loss.nullsWithoutError.map((leaf) => `${path}: ${leaf}`))
      expect(loss.badErrors).toEqual([])
    }
    expect(reads.size).toBeGreaterThan(40)
    expect({ leaves: leaves > 0, beyond, without }).toEqual({
      leaves: true,
      beyond: [],
      without: [],
    })
  })

  it('under 10 % random faults on every read, four traversals at a time: each keeps everything whose reads succeeded', async () => {
    const { data } = await cleanAnswer()
    // 500 is not retried: each failed read stays failed.
    demo.inject({ path: /^\/v1\//, status: 500, rate: 0.1 })
    const losses = []
    for (let round = 0; round < 6; round++) {
      const answers = await Promise.all([0, 1, 2, 3].map(() => stack.post(PAGE)))
      losses.push(
        ...answers.map(({ body }) => ({
          loss: answerLoss(data, body),
          errors: body.errors?.length ?? 0,
        })),
      )
    }
    const faulted = losses.filter(({ errors }) => errors > 0)
    expect(faulted.length).toBeGreaterThan(losses.length / 2)
    expect(
      losses.flatMap(({ loss }) => [
        ...loss.lostBeyondErrors,
        ...loss.nullsWithoutError,
        ...loss.badErrors,
      ]),
    ).toEqual([])
    expect(demo.calls().filter((call) => call.status === 500).length).toBeGreaterThan(losses.length)
  })
})

describe('a value comes from one read: it is lost exactly when that read failed', () => {
  type Body = Awaited<ReturnType<typeof stack.post>>['body']
  const codesAt = (body: Body) =>
    (body.errors ?? []).map((e) => `${(e.path ?? []).join('.')} ${e.extensions?.code}`).sort()
  const withFault = async (path: RegExp, query: string, client: Client = stack) => {
    demo.reset()
    demo.inject({ path, status: 500 })
    return (await client.post(query)).body
  }

  it.each([
    ['name first', 'name contacts(first: 1) { totalCount } lookalikes(first: 1) { totalCount }'],
    ['name between', 'lookalikes(first: 1) { totalCount } name contacts(first: 1) { totalCount }'],
  ])(
    'a company’s contacts fail, its statements name it (%s): its name stands',
    async (_order, fields) => {
      const body = await withFault(
        /\/contacts$/,
        `{ company(${companyArgs(michiels)}) { ${fields} } }`,
      )
      expect(body.data?.company).toMatchObject({ name: michiels.name })
      expect(codesAt(body)).toEqual(['company.contacts UPSTREAM_ERROR'])
    },
  )

  it('two aliases of one company: the name of each stands when its statements read succeeded', async () => {
    const body = await withFault(
      /\/contacts$/,
      `{ a: company(${companyArgs(michiels)}) { name contacts(first: 1) { totalCount } } b: company(${companyArgs(michiels)}) { lookalikes(first: 1) { totalCount } name } }`,
    )
    expect(codesAt(body)).toEqual(['a.contacts UPSTREAM_ERROR'])
  })

  it('a lookalike whose financials fail and whose relationships answer: the same answer whatever the field order', async () => {
    const query = (fields: string) =>
      `{ company(${companyArgs(claes)}) { lookalikes(first: 1) { nodes { number ${fields} } } } }`
    const a = await withFault(
      /\/financials$/,
      query('name financials(first: 1) { totalCount } shareholders { name }'),
    )
    const b = await withFault(
      /\/financials$/,
      query('shareholders { name } name financials(first: 1) { totalCount }'),
    )
    expect({ data: a.data, errors: codesAt(a) }).toEqual({ data: b.data, errors: codesAt(b) })
  })

  it('a company beside a list read that names it too: named by its own statements only, the same answer with the cache off and with that read cached', async () => {
    const member = demo.data.list(bigList.id)?.members[0]?.company
    if (!member) throw new Error('no member')
    const list = `list(listId: ${bigList.id}) { companies(first: 1) { nodes { number } } }`
    const query = `{ ${list} company(${companyArgs(member)}) { name financials(first: 1) { totalCount } } }`
    const cached = stack.replica({ cacheTtlSeconds: 300 })
    await cached.post(`{ ${list} }`)
    const off = await withFault(/\/financials$/, query)
    const warm = await withFault(/\/financials$/, query, cached)
    expect(off.data?.company).toEqual({ name: null, financials: null })
    expect(codesAt(off)).toEqual([
      'company.financials UPSTREAM_ERROR',
      'company.name UPSTREAM_ERROR',
    ])
    expect({ data: off.data, errors: codesAt(off) }).toEqual({
      data: warm.data,
      errors: codesAt(warm),
    })
  })
})
