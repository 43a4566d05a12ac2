import { describe, expect, it } from 'vitest'
import { startStack } from './support/stack.js'

/**
 * Hostile review of compiled execution: documents whose answer differs between graphql-jit
 * (the gateway) and graphql-js (a replica with compiledExecution: 'never'). No upstream call needed.
 */

const stack = await startStack({ upstreamToken: 'demo-token' })
const plain = stack.replica({ compiledExecution: 'never' })

type Gateway = Pick<typeof stack, 'gateway'>
async function send(gateway: Gateway, query: string, operationName?: string, variables?: object) {
  const response = await gateway.gateway.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: 'Bearer demo-token',
    },
    body: JSON.stringify({ query, operationName, variables }),
  })
  const body = (await response.json()) as { data?: unknown; errors?: unknown }
  return { data: body.data, errors: body.errors }
}

/** The second answer of the gateway (compiled) and graphql-js's answer. */
async function both(query: string, operationName?: string, variables?: object) {
  await send(stack, query, operationName, variables)
  const compiled = await send(stack, query, operationName, variables)
  const reference = await send(plain, query, operationName, variables)
  return { compiled, reference }
}

describe('compiled execution: compiled answers differ from graphql-js', () => {
  it('a fragment spread twice, the first one skipped, is still included', async () => {
    // graphql-js marks a fragment visited only when its spread is included; graphql-jit marks it
    // on the first spread whatever its @skip, so the second spread is dropped.
    const { compiled, reference } = await both(
      '{ ...F @skip(if: true) ...F } fragment F on Query { __typename }',
    )
    expect(reference.data).toEqual({ __typename: 'Query' })
    expect(compiled).toEqual(reference)
  })

  it('an operation compiled first does not change another operation of the same document', async () => {
    // graphql-jit writes its @include conditions onto the document's field nodes
    // (__internalShouldIncludePath); a later compile of another operation that spreads the same
    // fragment at the same path inherits them.
    const document =
      'query A($x: Boolean!) { ...F @include(if: $x) } query B { ...F } fragment F on Query { __typename }'
    await both(document, 'A', { x: false })
    const { compiled, reference } = await both(document, 'B')
    expect(reference.data).toEqual({ __typename: 'Query' })
    expect(compiled).toEqual(reference)
  })

  it('a fragment skipped under one type condition is still included under another', async () => {
    // graphql-jit keys its @skip/@include conditions by response path, on the fragment's field
    // nodes, the same for every possible type of node(): Company's skipped spread of F also
    // skips F's id for a List.
    const listId = Buffer.from(`List:${stack.demo.data.lists[0]?.id}`).toString('base64url')
    const { compiled, reference } = await both(
      `{ node(id: "${listId}") { ... on Company { ...F @skip(if: true) } ... on List { ...F } } } fragment F on Node { id }`,
    )
    expect(reference.data).toEqual({ node: { id: listId } })
    expect(compiled).toEqual(reference)
  })
})
