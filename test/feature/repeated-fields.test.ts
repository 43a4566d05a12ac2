import { expect, it } from 'vitest'
import { MAX_REPEATED_FIELD } from '../../src/operation/shape-limits.js'
import { startStack } from '../support/stack.js'

/**
 * A field selected too many times in one selection set (fragments spread in) is refused before
 * graphql-js's validation compares every pair of them: 30 fragments of 12 `nodes { listId }`
 * (6 KB, within every other shape limit) cost 0.4–0.8 s of CPU each, and four at once held an
 * unrelated cached query for 4 s (the hostile review of issue 27).
 */

const stack = await startStack()
const { demo } = stack

/** `fragments` fragments on the lists' connection, each selecting `nodes` `times` times. */
function document(fragments: number, times: number) {
  let text = `{ lists { ${Array.from({ length: fragments }, (_, i) => `...f${i}`).join(' ')} } }`
  for (let i = 0; i < fragments; i++) {
    text += ` fragment f${i} on ListConnection { ${'nodes { listId } '.repeat(times)} }`
  }
  return text
}

it('refuses a field selected more than the limit in one set, before the pairwise check', async () => {
  const { status, body } = await stack.post(document(30, 12))
  expect(status).toBe(200)
  expect(body.data).toBeUndefined()
  expect(body.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([
    [
      'GRAPHQL_VALIDATION_FAILED',
      `A field is selected more than ${MAX_REPEATED_FIELD} times in one selection set (fragments spread in).`,
    ],
  ])
  expect(demo.calls()).toEqual([])
})

it('answers what Relay sends: the same field from a few fragments', async () => {
  const { body } = await stack.post(document(10, 3))
  expect(body.errors).toBeUndefined()
  expect(body.data).toMatchObject({ lists: { nodes: expect.any(Array) } })
})
