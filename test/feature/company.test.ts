import { describe, expect, it } from 'vitest'
import type { Fault } from '../../src/demo-upstream/faults.js'
import { graphql } from '../gql/index.js'
import { claes, companyArgs, companyId } from '../support/fixtures.js'
import { type Client, startStack } from '../support/stack.js'

const stack = await startStack()
const { demo } = stack

/** A Belgian demo company with ten years of statements. */
const company = claes
const statements = demo.data.financialsOf(company)

const CompanyFinancials = graphql(`
  query CompanyFinancials($country: Country!, $number: String!, $first: Int, $after: String, $last: Int, $before: String) {
    company(country: $country, number: $number) {
      id
      country
      number
      name
      place
      financials(first: $first, after: $after, last: $last, before: $before) {
        totalCount
        edges {
          cursor
          node {
            startDate
            endDate
            dateReceived
            healthIndicator
            jointCommitteeCodes
            profitability { revenue grossMargin ebitda ebit netProfit }
            liquidity { cash cashFlow netWorkingCapital netWorkingCapitalRequirement currentRatio quickRatio }
            solvency {
              totalAssets equity capital retainedEarnings debt longTermDebt longTermDebtFinancial
              longTermDebtAccountsPayable shortTermDebt shortTermDebtFinancial shortTermDebtAccountsPayable
            }
            people { employees newHires employeeMaleRatio employeeFemaleRatio }
          }
        }
        nodes { endDate }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }
  }
`)

const CompanyName = graphql(`
  query CompanyName($country: Country!, $number: String!) {
    company(country: $country, number: $number) { number name place }
  }
`)

const CompanyByNumber = graphql(`
  query CompanyByNumber($country: Country!, $number: String!) {
    company(country: $country, number: $number) { number name }
  }
`)

const vars = { country: company.country, number: company.companyNumber }

/** Every field of a company: what the caller gave and what needs a read (all of one read). */
const FIELDS =
  'fragment Fields on Company { id country number name place financials(first: 2) { totalCount } }'

describe('company { name financials }', () => {
  it('returns every field of the statements, with the name from the same upstream call', async () => {
    const result = await stack.execute(CompanyFinancials, { ...vars, first: 3 })
    expect(result.errors).toBeUndefined()
    const c = result.data?.company
    expect(c).toMatchObject({
      country: company.country,
      number: company.companyNumber,
      name: company.name,
      place: company.place,
    })
    expect(c?.financials?.totalCount).toBe(10)
    expect(c?.financials?.edges.map((e) => e.node)).toEqual(statements.slice(0, 3))
    expect(c?.financials?.nodes.map((n) => n.endDate)).toEqual(
      statements.slice(0, 3).map((s) => s.endDate),
    )
    expect(c?.financials?.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false })
    expect(demo.calls().map((call) => [call.path, call.query])).toEqual([
      [
        `/v1/companies/${company.country}/${company.companyNumber}/financials`,
        { limit: '500', offset: '0' },
      ],
    ])
  })

  it('pages forward with after and backward with before, with the same cursor for the same statement', async () => {
    const page1 = await stack.execute(CompanyFinancials, { ...vars, first: 4 })
    const end1 = page1.data?.company?.financials?.pageInfo.endCursor
    const page2 = await stack.execute(CompanyFinancials, { ...vars, first: 4, after: end1 })
    const f2 = page2.data?.company?.financials
    expect(f2?.edges.map((e) => e.node.endDate)).toEqual(
      statements.slice(4, 8).map((s) => s.endDate),
    )
    expect(f2?.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true })

    const back = await stack.execute(CompanyFinancials, {
      ...vars,
      last: 4,
      before: f2?.pageInfo.startCursor,
    })
    const fb = back.data?.company?.financials
    expect(fb?.edges).toEqual(page1.data?.company?.financials?.edges)
    expect(fb?.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false })
  })

  it('returns the final statements for last alone, using the upstream total', async () => {
    const result = await stack.execute(CompanyFinancials, { ...vars, last: 3 })
    const f = result.data?.company?.financials
    expect(f?.edges.map((e) => e.node.endDate)).toEqual(statements.slice(7).map((s) => s.endDate))
    expect(f?.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true })
    const all = await stack.execute(CompanyFinancials, { ...vars, first: 10 })
    expect(f?.edges).toEqual(all.data?.company?.financials?.edges.slice(7))
  })

  it('accepts a number written with dots, spaces, its country prefix, or without its leading 0', async () => {
    const n = company.companyNumber
    const dotted = `${n.slice(0, 4)}.${n.slice(4, 7)}.${n.slice(7)}`
    for (const written of [`BE ${dotted}`, `be${n}`, dotted.slice(1)]) {
      const result = await stack.execute(CompanyName, { country: 'BE', number: written })
      expect(result.data?.company).toEqual({ number: n, name: company.name, place: company.place })
    }
  })

  it.each([
    [
      'BE',
      '0922 178 704',
      /Invalid company number: a Belgian enterprise number fails its mod-97 check/,
    ],
    ['NL', '1234567', /a Dutch KVK number has 8 digits/],
    ['FR', '566925609', /a French SIREN fails its Luhn check/],
  ] as const)(
    '%s %s → BAD_USER_INPUT naming the rule, no upstream call',
    async (country, number, message) => {
      const result = await stack.execute(CompanyByNumber, { country, number })
      // Refused before the operation runs: no data at all.
      expect(result.data).toBeUndefined()
      expect(result.errors?.[0]?.message).toMatch(message)
      expect(result.errors?.[0]?.extensions).toEqual({
        code: 'BAD_USER_INPUT',
        retryable: false,
        argument: 'number',
      })
      expect(demo.calls()).toEqual([])
    },
  )

  it.each([
    ['number', '{ number }', 1],
    ['__typename', '{ __typename }', 1],
    ['name and place', '{ name place }', 1],
    ['financials and name', '{ name financials(first: 3) { totalCount } }', 1],
    [
      'every resource',
      '{ financials { totalCount } lookalikes { nodes { name } } shareholders { name } contacts { totalCount } }',
      4,
    ],
  ])(
    'a company the upstream does not know is null with NOT_FOUND at its path, asked for %s, with no extra call',
    async (_what, selection, calls) => {
      // Its statements read and the reads its fields need start together (held until all are
      // sent: the others are dropped once the company is known to be unknown).
      const held = demo.hold(/\/financials$/)
      const answer = stack.post(`{ company(country: NL, number: "00000001") ${selection} }`)
      await demo.waitForCalls((received) => received.length === calls)
      held.release()
      const { status, body } = await answer
      expect(status).toBe(200)
      expect(body.data).toEqual({ company: null })
      expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
        [['company'], 'NOT_FOUND'],
      ])
      expect(body.errors?.[0]?.message).toBe('The upstream knows no company NL 00000001.')
      expect(demo.calls()).toHaveLength(calls)
      expect(body.extensions?.cost).toMatchObject({ upstreamCalls: calls })
    },
  )
})

describe('upstream failures reach the client as coded errors on the failing field only', () => {
  const financialsPath = new RegExp(`/${company.companyNumber}/financials$`)

  it('a 404 of the company’s only read means the company is unknown: null with NOT_FOUND', async () => {
    demo.inject({ path: financialsPath, status: 404 })
    const result = await stack.execute(CompanyFinancials, { ...vars, first: 2 })
    expect(result.data).toEqual({ company: null })
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['company'], 'NOT_FOUND'],
    ])
  })

  it.each([
    [401, 'UNAUTHENTICATED'],
    [403, 'FORBIDDEN'],
  ])(
    'upstream %i on the company’s only read → %s on the company, never a ghost',
    async (status, code) => {
      demo.inject({ path: financialsPath, status })
      const result = await stack.execute(CompanyFinancials, { ...vars, first: 2 })
      expect(result.status).toBe(200)
      expect(result.data).toEqual({ company: null })
      expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['company'], code]])
      expect(result.errors?.[0]?.message).not.toContain(demo.url)
      expect(demo.calls().map((c) => c.path)).toEqual([
        `/v1/companies/BE/${company.companyNumber}/financials`,
      ])
    },
  )

  // The calls: the one read the fields need (with its retries), no check of its own.
  const transient: [string, string, number, Omit<Fault, 'path'>][] = [
    ['500', 'UPSTREAM_ERROR', 1, { status: 500 }],
    ['503', 'UPSTREAM_ERROR', 3, { status: 503 }],
    ['429', 'RATE_LIMITED', 1, { status: 429, retryAfter: '30' }],
    ['a body that is not JSON', 'UPSTREAM_BAD_RESPONSE', 1, { body: '{"identifier": ' }],
    ['a body of the wrong shape', 'UPSTREAM_BAD_RESPONSE', 1, { transform: () => ({ data: 7 }) }],
    ['no answer in time', 'UPSTREAM_TIMEOUT', 1, { delayMs: 4000 }],
  ]
  describe.each(['company', 'node'])('%s(): every read failed for a transient reason', (root) => {
    const ask = (client: Client) =>
      client.post(
        root === 'company'
          ? `{ company(${companyArgs(company)}) { ...Fields } } ${FIELDS}`
          : `{ company: node(id: "${companyId(company)}") { ...Fields } } ${FIELDS}`,
      )
    it.each(transient)(
      '%s → the company with what the caller gave, each read-backed field null with %s (%i calls)',
      async (_what, code, calls, fault) => {
        // A gateway of its own: a 429 pauses the token's reads there, not in later tests.
        const client = stack.replica({ upstreamTimeoutMs: 400 })
        demo.inject({ path: financialsPath, ...fault })
        const { status, body } = await ask(client)
        expect(status).toBe(200)
        expect(body.data).toEqual({
          company: {
            id: companyId(company),
            country: company.country,
            number: company.companyNumber,
            name: null,
            place: null,
            financials: null,
          },
        })
        // In the order the reads settled, which is not the point here.
        expect(
          body.errors?.map((e) => `${e.path?.join('.')} ${e.extensions?.code}`).sort(),
        ).toEqual(['financials', 'name', 'place'].map((field) => `company.${field} ${code}`))
        expect(demo.calls().map((c) => c.path)).toEqual(
          Array.from(
            { length: calls },
            () => `/v1/companies/BE/${company.companyNumber}/financials`,
          ),
        )
      },
    )

    it('404 → null with NOT_FOUND, from the same one read', async () => {
      demo.inject({ path: financialsPath, status: 404 })
      const { body } = await ask(stack)
      expect(body.data).toEqual({ company: null })
      expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
        [['company'], 'NOT_FOUND'],
      ])
      expect(demo.calls()).toHaveLength(1)
    })

    it('with no read-backed field, the company is what the caller gave: only a 404, 401 or 403 of its statements nulls it', async () => {
      demo.inject({ path: financialsPath, status: 500 })
      const { body } = await stack.post(
        root === 'company'
          ? `{ company(${companyArgs(company)}) { id number } }`
          : `{ company: node(id: "${companyId(company)}") { id ... on Company { number } } }`,
      )
      expect(body.data).toEqual({
        company: { id: companyId(company), number: company.companyNumber },
      })
      expect(body.errors).toBeUndefined()
      expect(demo.calls()).toHaveLength(1)
    })
  })

  it('a failed read beside one that succeeds fails only its field: the company exists', async () => {
    demo.inject({ path: financialsPath, status: 503 })
    const { body } = await stack.post(
      `{ company(country: ${company.country}, number: "${company.companyNumber}") { number shareholders { name } statements: financials(first: 1) { totalCount } } }`,
    )
    expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['company', 'statements'], 'UPSTREAM_ERROR'],
    ])
  })

  it('429 → RATE_LIMITED with retryAfterSeconds', async () => {
    demo.inject({ path: financialsPath, status: 429, retryAfter: '12' })
    // A gateway of its own: the token's reads pause for those 12 s there, not in later tests.
    const result = await stack.replica().execute(CompanyFinancials, { ...vars, first: 2 })
    expect(result.errors?.[0]?.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterSeconds: 12,
    })
  })

  it('a shape mismatch → UPSTREAM_BAD_RESPONSE naming the path', async () => {
    demo.inject({
      path: financialsPath,
      transform: (json) => ({ ...(json as object), pagination: { total: 'many' } }),
    })
    const result = await stack.execute(CompanyFinancials, { ...vars, first: 2 })
    expect(result.errors?.[0]?.extensions?.code).toBe('UPSTREAM_BAD_RESPONSE')
    expect(result.errors?.[0]?.message).toContain('pagination')
  })

  it('a whole number beyond 32 bits where the schema shows an Int → UPSTREAM_BAD_RESPONSE on the read that brought it', async () => {
    const staffed = demo.data.companies.find(
      (c) => demo.data.contactsOf(c).length > 0 && demo.data.lookalikesOf(c).length > 0,
    )
    if (!staffed) throw new Error('demo data lacks a company with contacts and peers')
    demo.inject({
      path: /\/contacts$/,
      transform: (json) => {
        for (const c of (json as { data: { identifier: { contactId: number } }[] }).data) {
          c.identifier.contactId += 2 ** 40
        }
        return json
      },
    })
    const { body } = await stack.post(
      `{ company(country: ${staffed.country}, number: "${staffed.companyNumber}") { contacts(first: 3) { nodes { contactId } } lookalikes(first: 1) { totalCount } } }`,
    )
    // The lookalikes read shows that the company exists; contacts alone is null.
    expect(body.data).toEqual({
      company: {
        contacts: null,
        lookalikes: { totalCount: demo.data.lookalikesOf(staffed).length },
      },
    })
    expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['company', 'contacts'], 'UPSTREAM_BAD_RESPONSE'],
    ])
  })

  it('keeps the sibling fields when only one fails', async () => {
    const Both = graphql(`
      query NameAndTwoPages($country: Country!, $number: String!) {
        company(country: $country, number: $number) {
          number
          recent: financials(first: 1) { totalCount }
        }
        other: company(country: NL, number: "00000001") { number name }
      }
    `)
    const result = await stack.execute(Both, vars)
    expect(result.data).toEqual({
      company: { number: company.companyNumber, recent: { totalCount: 10 } },
      other: null,
    })
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['other'], 'NOT_FOUND'],
    ])
  })
})

describe('caller headers', () => {
  it('forwards the caller’s bearer token and the first of nl/fr/en of Accept-Language', async () => {
    await stack.execute(CompanyName, vars, {
      authorization: 'Bearer demo-token',
      'accept-language': 'de-DE, fr-BE;q=0.9, nl;q=0.8',
    })
    expect(demo.calls().map((c) => [c.token, c.language])).toEqual([['demo-token', 'FR']])
  })

  it('sends no language header when Accept-Language names none of the three', async () => {
    await stack.execute(CompanyName, vars, {
      authorization: 'Bearer demo-token',
      'accept-language': 'de',
    })
    expect(demo.calls().map((c) => c.language)).toEqual([undefined])
  })

  it('without a token anywhere: UNAUTHENTICATED and no upstream call', async () => {
    const result = await stack.execute(CompanyName, vars, {})
    expect(result.data).toEqual({ company: null })
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['company'], 'UNAUTHENTICATED'],
    ])
    expect(demo.calls()).toEqual([])
  })

  it.each([
    ['no token', {}],
    ['a token the upstream refuses', { authorization: 'Bearer revoked' }],
  ])('with %s, a company asked only for its number is no ghost', async (_what, headers) => {
    const { body } = await stack.post(
      `{ company(country: ${company.country}, number: "${company.companyNumber}") { id country number } }`,
      {},
      headers,
    )
    expect(body.data).toEqual({ company: null })
    expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['company'], 'UNAUTHENTICATED'],
    ])
  })
})

describe('checking that a company exists costs no round trip', () => {
  it('company(): the check and every field’s first read are in flight at once', async () => {
    const held = demo.hold(/^\/v1\/companies\//)
    const pending = stack.post(
      `{ company(country: ${company.country}, number: "${company.companyNumber}") { name financials(first: 1) { totalCount } lookalikes(first: 2) { nodes { number } } shareholders { name } } }`,
    )
    // Nothing is answered until three reads were received: had the check gone first, this hangs.
    await demo.waitForCalls((calls) => calls.length === 3)
    expect(
      demo
        .calls()
        .map((c) => c.path.split('/').at(-1))
        .sort(),
    ).toEqual(['financials', 'lookalikes', 'relationships'])
    held.release()
    const { body } = await pending
    expect(body.errors).toBeUndefined()
    expect(demo.calls()).toHaveLength(3)
  })
})
