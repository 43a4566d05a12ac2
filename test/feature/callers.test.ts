import { createHash, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type JWK,
  type JWTHeaderParameters,
  type JWTPayload,
  SignJWT,
  UnsecuredJWT,
} from 'jose'
import { afterAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { createGateway } from '../../src/gateway.js'
import { createLogger } from '../../src/observability/logger.js'
import { claes, companyArgs } from '../support/fixtures.js'
import { logSink } from '../support/log-sink.js'
import { metricsOf } from '../support/metrics.js'
import { freePort } from '../support/process.js'
import { serve } from '../support/serve.js'
import { type Answer, startStack } from '../support/stack.js'

/**
 * Callers verified where the gateway spends its own UPSTREAM_TOKEN (contract/runtime.md,
 * `Authorization`; issue #21): JWTs checked against the issuer's key set, served here by a
 * small JWKS server on loopback, and hashed API keys. A refused credential is a 401 before any
 * upstream call; the upstream is always called with UPSTREAM_TOKEN, never the caller's credential.
 */

const ISSUER = 'https://issuer.example.test/'
const AUDIENCE = 'company-data-gateway'
const query = `{ company(${companyArgs(claes)}) { name } }`

/** A signing key of the issuer, and its public half as its key set publishes it. */
async function signingKey(alg: 'RS256' | 'ES256', kid = randomUUID()) {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' }
  // The claims given win over the valid ones.
  const sign = (claims: JWTPayload = {}, header: Omit<JWTHeaderParameters, 'alg'> = { kid }) => {
    const now = Math.floor(Date.now() / 1000)
    const valid = { sub: 'alice', iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 300 }
    return new SignJWT({ ...valid, ...claims })
      .setProtectedHeader({ alg, ...header })
      .sign(privateKey)
  }
  return { kid, jwk, publicKey, privateKey, sign }
}

/**
 * The issuer's key set on loopback: what it serves can change, it counts its requests, and it can
 * be down (503) or hang (`hold`).
 */
async function jwksServer(keys: JWK[]) {
  const state = { keys, requests: 0, down: false }
  const held: ServerResponse[] = []
  const answer = (response: ServerResponse) => {
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify({ keys: state.keys }))
  }
  let holding = false
  const { url } = await serve((_request, response) => {
    state.requests++
    if (holding) held.push(response)
    else if (state.down) response.writeHead(503).end('down')
    else answer(response)
  })
  return Object.assign(state, {
    url: `${url}/.well-known/jwks.json`,
    /** Answers nothing until the test ends. */
    hold() {
      holding = true
      onTestFinished(() => {
        holding = false
        for (const response of held.splice(0)) answer(response)
      })
    },
  })
}

/** Moves Date (only: jose's clock) forward until the test ends. */
function advanceDate(ms: number) {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + ms })
  onTestFinished(() => {
    vi.useRealTimers()
  })
}

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` })

/** A 401 as RFC 6750 and the contract say: coded body, challenge, nothing asked upstream. */
function expectRefused(answer: Answer, challenge: string) {
  expect(answer.status).toBe(401)
  expect(answer.headers.get('www-authenticate')).toBe(challenge)
  expect(answer.json().errors).toEqual([
    expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED', retryable: false } }),
  ])
}

describe('JWT callers (AUTH_JWKS_URL, AUTH_ISSUER, AUTH_AUDIENCE)', async () => {
  const rsa = await signingKey('RS256')
  const ec = await signingKey('ES256')
  const jwks = await jwksServer([rsa.jwk, ec.jwk])
  const log = logSink()
  const authJwt = { jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE }
  const stack = await startStack(
    { upstreamToken: DEMO_TOKEN, authJwt },
    { logger: createLogger('info', log.stream) },
  )
  const ask = (headers: Record<string, string>) =>
    stack.request({ headers: { accept: 'application/json', ...headers }, body: { query } })
  beforeEach(() => log.clear())

  it('answers a valid RS256 or ES256 token, and calls the upstream with UPSTREAM_TOKEN only', async () => {
    for (const key of [rsa, ec]) {
      const answer = await ask(bearer(await key.sign()))
      expect(answer.status).toBe(200)
      expect(answer.json().data).toEqual({ company: { name: claes.name } })
    }
    expect(stack.demo.calls().map((call) => call.token)).toEqual([DEMO_TOKEN, DEMO_TOKEN])
  })

  it('takes the Bearer scheme in any case (RFC 7235)', async () => {
    const token = await rsa.sign()
    for (const scheme of ['bearer', 'BEARER']) {
      expect((await ask({ authorization: `${scheme} ${token}` })).status).toBe(200)
    }
  })

  const attacker = await signingKey('RS256')
  const hour = Math.floor(Date.now() / 1000) + 3600
  const refused: [string, () => Promise<string>][] = [
    ['malformed', async () => 'not.a.jwt'],
    ['expired', () => rsa.sign({ exp: Math.floor(Date.now() / 1000) - 60 })],
    ['not valid yet', () => rsa.sign({ nbf: hour })],
    ['of another issuer', () => rsa.sign({ iss: 'https://other.example.test/' })],
    ['for another audience', () => rsa.sign({ aud: 'another-service' })],
    ['without a subject', () => rsa.sign({ sub: undefined })],
    ['with a subject that is no string', () => rsa.sign({ sub: 42 as unknown as string })],
    [
      'without an expiry',
      () =>
        new SignJWT({ sub: 'alice' })
          .setProtectedHeader({ alg: 'RS256', kid: rsa.kid })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .sign(rsa.privateKey),
    ],
    [
      'unsigned (alg none)',
      async () =>
        new UnsecuredJWT({ sub: 'alice' })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .encode(),
    ],
    [
      'signed HS256 with the public key (algorithm confusion)',
      async () =>
        new SignJWT({ sub: 'alice' })
          .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(await exportSPKI(rsa.publicKey))),
    ],
    ['signed by another key under a known kid', () => attacker.sign({}, { kid: rsa.kid })],
    ['signed by a key the issuer never published', () => attacker.sign()],
    [
      'carrying its own key (a jwk header)',
      async () => attacker.sign({}, { jwk: await exportJWK(attacker.publicKey) }),
    ],
  ]

  it.each(refused)('refuses a token %s: 401 invalid_token, no upstream call', async (_, token) => {
    const answer = await ask(bearer(await token()))
    expectRefused(answer, 'Bearer error="invalid_token"')
    expect(stack.demo.calls()).toEqual([])
  })

  it('says why: an expired token is told so, to be refreshed', async () => {
    const answer = await ask(bearer(await rsa.sign({ exp: Math.floor(Date.now() / 1000) - 60 })))
    expect(answer.json().errors?.[0]?.message).toBe('The bearer credential has expired.')
  })

  it.each([
    ['no Authorization header', {}],
    ['another scheme', { authorization: `Basic ${btoa('alice:secret')}` }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])('refuses %s: 401 with a bare Bearer challenge, no upstream call', async (_, headers) => {
    expectRefused(await ask(headers), 'Bearer')
    expect(stack.demo.calls()).toEqual([])
  })

  it('never takes a token from the query string (it would be in access logs)', async () => {
    const token = await rsa.sign()
    const answer = await stack.request({
      path: `/graphql?query=${encodeURIComponent(query)}&access_token=${token}`,
      headers: { accept: 'application/json' },
    })
    expectRefused(answer, 'Bearer')
    expect(stack.demo.calls()).toEqual([])
  })

  it('refuses before the body is read: a refused caller’s malformed body is never parsed', async () => {
    const answer = await stack.request({
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{ not json',
    })
    expectRefused(answer, 'Bearer')
  })

  it('serves GraphiQL’s page, /health, /ready and /metrics without a credential', async () => {
    const page = await stack.request({ headers: { accept: 'text/html' } })
    expect(page.status).toBe(200)
    expect(page.text).toContain('Bearer <your API key or token>')
    for (const path of ['/health', '/ready', '/metrics']) {
      expect((await stack.request({ path })).status).toBe(200)
    }
  })

  /** A gateway of its own, so that its key set (and jose's clock for it) starts afresh. */
  const fresh = () => {
    const replica = stack.replica()
    return (headers: Record<string, string>) =>
      replica.request({ headers: { accept: 'application/json', ...headers }, body: { query } })
  }

  it('finds a rotated key: a new kid makes it fetch the key set again', async () => {
    const askFresh = fresh()
    expect((await askFresh(bearer(await rsa.sign()))).status).toBe(200)
    const next = await signingKey('ES256')
    jwks.keys = [...jwks.keys, next.jwk]
    onTestFinished(() => {
      jwks.keys = [rsa.jwk, ec.jwk]
    })
    // jose fetches again for an unknown kid once 30 s have passed since its last fetch.
    advanceDate(31_000)
    const fetched = jwks.requests
    expect((await askFresh(bearer(await next.sign()))).status).toBe(200)
    expect(jwks.requests).toBe(fetched + 1)
  })

  it('made-up kids do not make it hammer the issuer: one fetch per 30 s at most', async () => {
    const askFresh = fresh()
    const madeUp = () =>
      Promise.all(Array.from({ length: 30 }, () => attacker.sign({}, { kid: randomUUID() })))
    const expectRefusedAll = async (tokens: string[]) => {
      const answers = await Promise.all(tokens.map((token) => askFresh(bearer(token))))
      expect(answers.map((answer) => answer.status)).toEqual(tokens.map(() => 401))
    }
    const before = jwks.requests
    // The first fetch: 30 at once wait for one.
    await expectRefusedAll(await madeUp())
    expect(jwks.requests - before).toBe(1)
    // Within 30 s of it: none.
    await expectRefusedAll(await madeUp())
    expect(jwks.requests - before).toBe(1)
    // After 30 s: one more for all of them.
    advanceDate(31_000)
    await expectRefusedAll(await madeUp())
    expect(jwks.requests - before).toBe(2)
    expect(stack.demo.calls()).toEqual([])
  })

  it('refuses a key the issuer withdrew once its set, 10 minutes old, is fetched again in the background', async () => {
    const askFresh = fresh()
    expect((await askFresh(bearer(await rsa.sign()))).status).toBe(200)
    jwks.keys = [ec.jwk]
    onTestFinished(() => {
      jwks.keys = [rsa.jwk, ec.jwk]
    })
    advanceDate(11 * 60_000)
    const before = jwks.requests
    const withdrawn = await rsa.sign()
    // Checked against the set held until the fetch the first of these starts has landed.
    await vi.waitFor(async () =>
      expectRefused(await askFresh(bearer(withdrawn)), 'Bearer error="invalid_token"'),
    )
    expect(jwks.requests - before).toBe(1)
  })

  describe('while the issuer is out, 11 minutes after the last fetch (jose would refetch at 10)', () => {
    it('checks tokens of the keys it holds at once: one fetch, in the background, logged', async () => {
      const askFresh = fresh()
      expect((await askFresh(bearer(await rsa.sign()))).status).toBe(200)
      jwks.down = true
      onTestFinished(() => {
        jwks.down = false
      })
      advanceDate(11 * 60_000)
      const before = jwks.requests
      const token = await rsa.sign()
      for (let i = 0; i < 5; i++) expect((await askFresh(bearer(token))).status).toBe(200)
      expect(jwks.requests - before).toBe(1)
      expect(stack.demo.calls()).toHaveLength(6)
      await vi.waitFor(() =>
        expect(log.lines()).toContainEqual(
          expect.objectContaining({
            level: 40,
            msg: 'AUTH_JWKS_URL: the key set could not be fetched',
          }),
        ),
      )
    })

    it('answers a token of a kid it does not hold 503 AUTH_UNAVAILABLE: no fetch within 30 s of the failed one', async () => {
      const askFresh = fresh()
      expect((await askFresh(bearer(await rsa.sign()))).status).toBe(200)
      jwks.down = true
      onTestFinished(() => {
        jwks.down = false
      })
      advanceDate(11 * 60_000)
      const before = jwks.requests
      const unknown = await signingKey('ES256')
      for (let i = 0; i < 3; i++) {
        const answer = await askFresh(bearer(await unknown.sign()))
        expect(answer.status).toBe(503)
        expect(answer.json().errors).toEqual([
          expect.objectContaining({ extensions: { code: 'AUTH_UNAVAILABLE', retryable: true } }),
        ])
      }
      expect(jwks.requests - before).toBe(1)
    })

    it('makes no token of a key it holds wait for a key set that never comes', async () => {
      const askFresh = fresh()
      expect((await askFresh(bearer(await rsa.sign()))).status).toBe(200)
      jwks.hold()
      advanceDate(11 * 60_000)
      const before = jwks.requests
      const token = await ec.sign()
      const answers = await Promise.all(Array.from({ length: 10 }, () => askFresh(bearer(token))))
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200))
      // One fetch for all of them, in the background (waited for, it would end them 503).
      expect(jwks.requests - before).toBe(1)
    })
  })

  it('refuses a 1 MB token unread: no key fetched for it', async () => {
    const askFresh = fresh()
    const before = jwks.requests
    const huge = await rsa.sign({ padding: 'x'.repeat(1024 * 1024) })
    expectRefused(await askFresh(bearer(huge)), 'Bearer error="invalid_token"')
    expect(jwks.requests).toBe(before)
  })

  it('logs the caller as a keyed hash, never the token, and no metric is labelled with it', async () => {
    const alice = await rsa.sign()
    await ask(bearer(alice))
    await ask(bearer(await ec.sign()))
    await ask(bearer(await rsa.sign({ sub: 'bob' })))
    const callers = log
      .lines()
      .filter((line) => line.msg === 'operation')
      .map((line) => line.caller)
    expect(callers).toEqual([expect.stringMatching(/^[\w-]{12}$/), callers[0], expect.any(String)])
    expect(callers[2]).not.toBe(callers[0])
    expect(log.text()).not.toContain(alice)
    expect(log.text()).not.toContain('alice')
    const metrics = await metricsOf(stack)
    for (const caller of callers) expect(metrics).not.toContain(caller)
  })

  it('answers 503 AUTH_UNAVAILABLE, no upstream call, while the issuer’s keys are out of reach', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}/jwks.json`
    const cut = stack.replica({ authJwt: { ...authJwt, jwksUrl: nobody } })
    const answer = await cut.request({
      headers: { accept: 'application/json', ...bearer(await rsa.sign()) },
      body: { query },
    })
    expect(answer.status).toBe(503)
    expect(answer.json().errors).toEqual([
      expect.objectContaining({ extensions: { code: 'AUTH_UNAVAILABLE', retryable: true } }),
    ])
    expect(stack.demo.calls()).toEqual([])
    expect(log.lines()).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: 'AUTH_JWKS_URL: the key set could not be fetched',
      }),
    )
  })
})

describe('API-key callers (AUTH_API_KEYS_FILE)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-keys-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const sha256 = (key: string) => createHash('sha256').update(key).digest('hex')
  const keysFile = (content: unknown) => {
    const path = join(dir, `${randomUUID()}.json`)
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
    return path
  }
  const keys = { heavy: 'heavy-key-0123456789', light: 'light-key-0123456789' }
  const authApiKeysFile = keysFile({
    heavy: sha256(keys.heavy),
    light: sha256(keys.light).toUpperCase(),
  })
  const stack = await startStack({ upstreamToken: DEMO_TOKEN, authApiKeysFile })

  it('answers a known key (hashes in any case), sending UPSTREAM_TOKEN upstream, never the key', async () => {
    for (const key of [keys.heavy, keys.light]) {
      const { status, body } = await stack.post(query, {}, bearer(key))
      expect(status).toBe(200)
      expect(body.data).toEqual({ company: { name: claes.name } })
    }
    expect(stack.demo.calls().map((call) => call.token)).toEqual([DEMO_TOKEN, DEMO_TOKEN])
  })

  it('refuses an unknown key, the hash of a key itself, and a JWT-looking string: 401, no call', async () => {
    for (const credential of ['light-key-012345678', sha256(keys.light), 'a.b.c']) {
      const answer = await stack.request({
        headers: { accept: 'application/json', ...bearer(credential) },
        body: { query },
      })
      expectRefused(answer, 'Bearer error="invalid_token"')
    }
    expect(stack.demo.calls()).toEqual([])
  })

  const refusedAtStart =
    (authApiKeysFileSetting: string, upstreamToken: string | undefined) => () =>
      createGateway({
        ...loadConfig({}),
        upstreamUrl: 'http://127.0.0.1:9',
        upstreamToken,
        authApiKeysFile: authApiKeysFileSetting,
      })

  it.each([
    [
      'a hash that is not 64 hex digits',
      { alice: 'abc' },
      /a key hash must be 64 hex digits \(SHA-256\) \(at "alice"\)/,
    ],
    ['a key in clear', { alice: 'alice-key' }, /64 hex digits/],
    ['no key', {}, /holds no keys/],
    [
      'one key for two callers',
      { a: sha256('k'), b: sha256('k') },
      /two callers have the same key/,
    ],
    ['not an object', ['x'], /must be a JSON object/],
    ['not JSON', '{ alice:', /is not JSON/],
  ])(
    'refuses to start on a keys file with %s, naming AUTH_API_KEYS_FILE',
    (_, content, problem) => {
      const start = refusedAtStart(keysFile(content), DEMO_TOKEN)
      expect(start).toThrow(ConfigError)
      expect(start).toThrow(/^Invalid setting AUTH_API_KEYS_FILE: [^\n]+$/)
      expect(start).toThrow(problem)
    },
  )

  it('refuses to start on a keys file it cannot read', () => {
    expect(refusedAtStart(join(dir, 'missing.json'), DEMO_TOKEN)).toThrow(
      /^Invalid setting AUTH_API_KEYS_FILE: .*missing\.json: cannot be read \(ENOENT\)$/,
    )
  })

  it('refuses to start without UPSTREAM_TOKEN: the upstream verifies the caller’s own token then', () => {
    expect(refusedAtStart(authApiKeysFile, undefined)).toThrow(
      /^Invalid setting AUTH_API_KEYS_FILE: needs UPSTREAM_TOKEN/,
    )
  })
})
