import { describe, expect, it } from 'vitest'
import { demoToken, startStack } from '../support/stack.js'

/**
 * Issue 27: "The request edge. One code and status per kind of refusal, as
 * docs/errors.md says … No internal error object or caller input is echoed in production."
 */

const stack = await startStack({ production: true } as never)
const { demo } = stack
const marker = 'ECHOED-CALLER-INPUT-'
const big = marker.repeat(2_500) // 50 KB

describe('in production, a refusal repeats nothing the caller sent', () => {
  it.each([
    [
      'an Int variable that does not coerce',
      'query($x: Int) { lists(first: $x) { totalCount } }',
      { x: big },
    ],
    [
      'an enum variable that does not coerce',
      'query($c: Country!) { company(country: $c, number: "0922178703") { name } }',
      { c: big },
    ],
    [
      'a company number of the wrong shape',
      'query($n: String!) { company(country: BE, number: $n) { name } }',
      { n: big },
    ],
  ])('%s', async (_, query, variables) => {
    const answer = await stack.request({
      headers: { accept: 'application/json', ...demoToken },
      body: { query, variables },
    })
    expect(answer.json().errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT')
    // Before the fix: the 50 KB value comes back in the message (twice for the variables: 100 KB).
    expect(answer.text).not.toContain(marker)
    expect(answer.text.length).toBeLessThan(2_000)
  })
})

describe('NOT_ACCEPTABLE has one status', () => {
  const deferred = '{ company(country: BE, number: "0922178703") { name ... @defer { place } } }'
  it.each(['application/json', 'application/graphql-response+json'])(
    '@defer with Accept: %s is answered 406, as an Accept the gateway cannot answer in',
    async (accept) => {
      demo.reset()
      const answer = await stack.request({
        headers: { accept, ...demoToken },
        body: { query: deferred },
      })
      expect(answer.json().errors?.map((e) => e.extensions?.code)).toEqual(['NOT_ACCEPTABLE'])
      const other = await stack.request({
        headers: { accept: 'text/html', ...demoToken },
        body: { query: '{ __typename }' },
      })
      expect(other.status).toBe(406)
      // Before the fix: 200 to application/json, 400 to application/graphql-response+json.
      expect(answer.status).toBe(other.status)
    },
  )
})

describe('a parameter given twice in a URL is malformed, as a non-string one is in JSON', () => {
  const document = encodeURIComponent('query a { __typename } query b { lists { totalCount } }')
  it('operationName twice: BAD_REQUEST 400, no upstream call', async () => {
    demo.reset()
    const json = await stack.request({
      headers: { accept: 'application/json', ...demoToken },
      body: {
        query: 'query a { __typename } query b { lists { totalCount } }',
        operationName: ['a', 'b'],
      },
    })
    expect([json.status, json.json().errors?.[0]?.extensions?.code]).toEqual([400, 'BAD_REQUEST'])
    const get = await stack.request({
      path: `/graphql?query=${document}&operationName=a&operationName=b`,
      headers: { accept: 'application/json', ...demoToken },
    })
    // Before the fix: 200, operation b runs (the last one given) and calls the upstream.
    expect([get.status, get.json().errors?.[0]?.extensions?.code]).toEqual([400, 'BAD_REQUEST'])
    expect(demo.calls()).toEqual([])
  })
})
