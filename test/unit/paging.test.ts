import { GraphQLError } from 'graphql'
import { describe, expect, it } from 'vitest'
import {
  connectionKey,
  encodeCursor,
  type PageArgs,
  pageArguments,
  pageOverOffsets,
} from '../../src/schema/paging.js'

const THINGS = connectionKey('things', 'parent-1')

/** The paging helper over a collection of 1,234 items, counting the fetches it makes. */
function collection(size = 1234) {
  const items = Array.from({ length: size }, (_, i) => i)
  const fetches: [number, number][] = []
  return {
    fetches,
    page: (args: PageArgs) =>
      pageOverOffsets(THINGS, args, async (offset, limit) => {
        expect(limit).toBeGreaterThan(0)
        expect(limit).toBeLessThanOrEqual(500)
        fetches.push([offset, limit])
        return { items: items.slice(offset, offset + limit), total: items.length }
      }),
  }
}

const offsets = (c: Awaited<ReturnType<ReturnType<typeof collection>['page']>>) =>
  c.edges.map((e) => e.node)
const cursor = (offset: number) => encodeCursor(THINGS, offset)

describe('forward', () => {
  it('defaults to the first 20', async () => {
    const c = collection()
    const page = await c.page({})
    expect(offsets(page)).toEqual([...Array(20).keys()])
    expect(page.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: cursor(0),
      endCursor: cursor(19),
    })
    expect(page.totalCount).toBe(1234)
    expect(c.fetches).toEqual([[0, 20]])
  })

  it('returns items 499..502 across the upstream page boundary in one fetch', async () => {
    const c = collection()
    const page = await c.page({ first: 4, after: cursor(498) })
    expect(offsets(page)).toEqual([499, 500, 501, 502])
    expect(c.fetches).toEqual([[499, 4]])
  })

  it('visits every item exactly once paging 500 at a time, with exact hasNextPage', async () => {
    const c = collection()
    const seen: number[] = []
    let after: string | null = null
    let pages = 0
    for (;;) {
      const page = await c.page({ first: 500, after })
      seen.push(...offsets(page))
      pages++
      if (!page.pageInfo.hasNextPage) break
      after = page.pageInfo.endCursor
    }
    expect(pages).toBe(3)
    expect(seen).toEqual([...Array(1234).keys()])
  })

  it('gives an item the same cursor whatever page it came in', async () => {
    const c = collection()
    const a = await c.page({ first: 10 })
    const b = await c.page({ first: 5, after: cursor(4) })
    expect(b.edges).toEqual(a.edges.slice(5, 10))
  })

  it('first: 0 returns no items but the total', async () => {
    const page = await collection().page({ first: 0 })
    expect(page.edges).toEqual([])
    expect(page.totalCount).toBe(1234)
    expect(page.pageInfo.hasNextPage).toBe(true)
  })
})

describe('backward', () => {
  it('last alone returns the final items: one fetch when the first answer reaches the end', async () => {
    const small = collection(3)
    expect(offsets(await small.page({ last: 5 }))).toEqual([0, 1, 2])
    expect(small.fetches).toEqual([[0, 5]])
  })

  it('last alone on a long collection fetches the total, then the tail', async () => {
    const c = collection()
    const page = await c.page({ last: 3 })
    expect(offsets(page)).toEqual([1231, 1232, 1233])
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true })
    expect(c.fetches).toEqual([
      [0, 3],
      [1231, 3],
    ])
  })

  it('last with before returns the items just before the cursor', async () => {
    const c = collection()
    const page = await c.page({ last: 4, before: cursor(502) })
    expect(offsets(page)).toEqual([498, 499, 500, 501])
    expect(page.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true })
    expect(c.fetches).toEqual([[498, 4]])
  })

  it('before alone defaults to the 20 items before it', async () => {
    const page = await collection().page({ before: cursor(30) })
    expect(offsets(page)).toEqual([...Array(20).keys()].map((i) => i + 10))
  })

  it('stops at the start', async () => {
    const page = await collection().page({ last: 10, before: cursor(3) })
    expect(offsets(page)).toEqual([0, 1, 2])
    expect(page.pageInfo.hasPreviousPage).toBe(false)
  })

  it('last: 0 reads the total once and returns nothing', async () => {
    const c = collection()
    const page = await c.page({ last: 0 })
    expect(offsets(page)).toEqual([])
    expect(page.totalCount).toBe(1234)
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true })
    expect(c.fetches).toEqual([[0, 1]])
  })

  it('after and before together bound the window', async () => {
    const page = await collection().page({ after: cursor(10), before: cursor(15) })
    expect(offsets(page)).toEqual([11, 12, 13, 14])
  })
})

describe('refused before any fetch', () => {
  const refused = async (args: PageArgs, argument: string) => {
    const c = collection()
    const error = await c.page(args).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GraphQLError)
    expect((error as GraphQLError).extensions).toEqual({
      code: 'BAD_USER_INPUT',
      retryable: false,
      argument,
    })
    expect(c.fetches).toEqual([])
  }

  // Judged before the operation runs (src/operation/use-admission.ts), by the check every
  // connection declares.
  it.each([
    [{ first: 501 }, 'first'],
    [{ first: -1 }, 'first'],
    [{ last: 1000 }, 'last'],
    [{ first: 5, last: 5 }, 'last'],
    [{ first: 0, last: 0 }, 'last'],
    [{ before: 'garbage!' }, 'before'],
    [{ after: Buffer.from('-1:things').toString('base64url') }, 'after'],
  ])('pageArguments refuses %o, naming %s', (args, argument) => {
    expect(pageArguments(args)).toEqual({ argument, message: expect.any(String) })
  })

  it('pageArguments takes what a page may ask', () => {
    for (const args of [
      {},
      { first: 0 },
      { last: 500 },
      { first: 3, after: encodeCursor('x', 3) },
    ]) {
      expect(pageArguments(args)).toBeUndefined()
    }
  })

  it('a cursor of another connection, or garbage', async () => {
    await refused({ after: encodeCursor(connectionKey('lists', 'parent-1'), 3) }, 'after')
    // Same kind of connection, another parent or another filter.
    await refused({ after: encodeCursor(connectionKey('things', 'parent-2'), 3) }, 'after')
    await refused({ before: encodeCursor(connectionKey('things', 'parent-1', 0.5), 3) }, 'before')
    await refused({ before: 'garbage!' }, 'before')
    await refused({ after: Buffer.from('-1:things').toString('base64url') }, 'after')
    await refused({ after: `${cursor(3)}==` }, 'after')
    await refused({ after: `${cursor(3)}!` }, 'after')
    await refused({ after: '' }, 'after')
  })
})
