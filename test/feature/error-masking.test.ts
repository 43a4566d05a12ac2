import { GraphQLError } from 'graphql'
import { describe, expect, it } from 'vitest'
import { bugInField } from '../support/bug.js'
import { startStack } from '../support/stack.js'

/**
 * docs/errors.md: "Masking keeps coded errors as they are and hides everything else: with
 * NODE_ENV=production an unexpected error's message is `Unexpected error.` and nothing more".
 * A GraphQLError without a code is unexpected (maskError recodes it INTERNAL_SERVER_ERROR), so
 * its message must be hidden too, whatever it holds.
 */

const production = await startStack({ production: true })
const { data } = production.demo

describe('in production, an unexpected error without a code', () => {
  it.each([
    ['a GraphQLError without a code', () => new GraphQLError('upstream said: token=s3cr3t')],
    [
      'a GraphQLError without extensions',
      () => {
        const error = new GraphQLError('upstream said: token=s3cr3t')
        Object.defineProperty(error, 'extensions', { value: undefined })
        return error
      },
    ],
  ])('(%s) answers `Unexpected error.` and nothing of its message', async (_shape, make) => {
    const company = data.companies[0]
    if (!company) throw new Error('no company')
    const bug = bugInField('Company', 'name', make())
    try {
      const { status, body } = await production.post(
        `{ company(country: ${company.country}, number: "${company.companyNumber}") { number name } }`,
      )
      expect(bug).toHaveBeenCalled()
      expect(status).toBe(200)
      expect(body.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([
        ['INTERNAL_SERVER_ERROR', 'Unexpected error.'],
      ])
      expect(JSON.stringify(body)).not.toContain('s3cr3t')
    } finally {
      bug.mockRestore()
    }
  })
})
