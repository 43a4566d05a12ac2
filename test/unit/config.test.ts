import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig, startWarnings } from '../../src/config.js'

/**
 * Settings from the environment (contract/runtime.md): the defaults, a bad one refused, and
 * what start-up warns about.
 */

describe('settings', () => {
  it('has the defaults of the runtime contract', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: '127.0.0.1',
      upstreamUrl: undefined,
      upstreamToken: undefined,
      upstreamLanguageHeader: 'Accept-Language',
      upstreamTimeoutMs: 10_000,
      upstreamMaxConnections: 32,
      upstreamMaxResponseBytes: 33_554_432,
      maxOperationCost: 1000,
      maxResultObjects: 20_000,
      maxDepth: 16,
      maxAliases: 30,
      maxBodyBytes: 102_400,
      operationTimeoutMs: 30_000,
      logLevel: 'info',
      cacheTtlSeconds: 300,
      cacheStaleSeconds: 3600,
      cacheMaxBytes: 67_108_864,
      redisUrl: undefined,
      upstreamRateLimit: undefined,
      upstreamCircuitFailures: 5,
      upstreamCircuitOpenSeconds: 10,
      shutdownTimeoutMs: 10_000,
      persistedDocuments: undefined,
      persistedDocumentsOnly: false,
      graphiql: true,
      subgraph: false,
      routerSecret: undefined,
      authApiKeysFile: undefined,
      authJwt: undefined,
      corsMaxAgeSeconds: 600,
      corsOrigins: '*',
      gatewaySecret: expect.any(String),
      gatewaySecretIsDefault: true,
      production: false,
    })
  })

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['UPSTREAM_URL', 'not a url'],
    ['UPSTREAM_URL', 'ftp://files.example.test'],
    ['REDIS_URL', 'http://redis.example.test'],
    ['CACHE_TTL_SECONDS', '-1'],
    ['UPSTREAM_RATE_LIMIT', '0'],
    ['GRAPHIQL', 'no'],
    ['SUBGRAPH', 'yes'],
    ['SUBGRAPH_ROUTER_SECRET', 'short'],
    ['PERSISTED_DOCUMENTS_ONLY', 'yes'],
    ['SHUTDOWN_TIMEOUT_MS', '0'],
    ['UPSTREAM_TIMEOUT_MS', '0'],
    ['UPSTREAM_MAX_CONNECTIONS', '-3'],
    ['MAX_OPERATION_COST', '1.5'],
    ['MAX_RESULT_OBJECTS', '0'],
    ['LOG_LEVEL', 'verbose'],
    ['UPSTREAM_LANGUAGE_HEADER', 'bad header'],
    ['OPERATION_TIMEOUT_MS', 'soon'],
    ['GATEWAY_SECRET', 'short'],
    ['AUTH_JWKS_URL', 'keys.json'],
    ['CORS_ORIGINS', 'app.example.com'],
    ['CORS_ORIGINS', 'https://app.example.com/'],
    ['CORS_ORIGINS', 'https://app.example.com,*'],
    ['CORS_ORIGINS', 'null'],
  ])('refuses %s=%s with one line naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`^Invalid setting ${name}: [^\\n]+$`),
    )
  })
})

describe('subgraph settings', () => {
  const secret = 'a secret the router and the gateway share'
  it('takes SUBGRAPH_ROUTER_SECRET only with SUBGRAPH=true', () => {
    expect(loadConfig({ SUBGRAPH: 'true', SUBGRAPH_ROUTER_SECRET: secret })).toMatchObject({
      subgraph: true,
      routerSecret: secret,
    })
    expect(() => loadConfig({ SUBGRAPH_ROUTER_SECRET: secret })).toThrow(
      /^Invalid setting SUBGRAPH_ROUTER_SECRET: is only read with SUBGRAPH=true$/,
    )
  })

  it("needs it with PERSISTED_DOCUMENTS_ONLY: the router's operations are in no manifest", () => {
    const only = { SUBGRAPH: 'true', PERSISTED_DOCUMENTS_ONLY: 'true' }
    expect(() => loadConfig(only)).toThrow(
      /^Invalid setting SUBGRAPH_ROUTER_SECRET: must be set with SUBGRAPH=true and PERSISTED_DOCUMENTS_ONLY=true[^\n]+$/,
    )
    expect(loadConfig({ ...only, SUBGRAPH_ROUTER_SECRET: secret }).routerSecret).toBe(secret)
  })
})

describe('caller verification and CORS settings', () => {
  const jwt = {
    AUTH_JWKS_URL: 'https://issuer.example.test/.well-known/jwks.json',
    AUTH_ISSUER: 'https://issuer.example.test/',
    AUTH_AUDIENCE: 'company-data-gateway',
  }

  it('takes AUTH_JWKS_URL only with AUTH_ISSUER and AUTH_AUDIENCE, and those only with it', () => {
    expect(loadConfig(jwt).authJwt).toEqual({
      jwksUrl: jwt.AUTH_JWKS_URL,
      issuer: jwt.AUTH_ISSUER,
      audience: jwt.AUTH_AUDIENCE,
    })
    for (const name of ['AUTH_ISSUER', 'AUTH_AUDIENCE'] as const) {
      expect(() => loadConfig({ ...jwt, [name]: '' })).toThrow(
        new RegExp(
          `^Invalid setting ${name}: AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE go together`,
        ),
      )
    }
    expect(() => loadConfig({ AUTH_ISSUER: jwt.AUTH_ISSUER })).toThrow(
      /^Invalid setting AUTH_JWKS_URL: [^\n]+$/,
    )
  })

  it('CORS_ORIGINS: a list, `*`, and unset: any in development and with the demo, none in production', () => {
    expect(
      loadConfig({ CORS_ORIGINS: 'https://a.example.test, http://localhost:3000' }),
    ).toMatchObject({ corsOrigins: ['https://a.example.test', 'http://localhost:3000'] })
    expect(loadConfig({ CORS_ORIGINS: ' * ' }).corsOrigins).toBe('*')
    expect(loadConfig({}).corsOrigins).toBe('*')
    expect(loadConfig({ NODE_ENV: 'production' }).corsOrigins).toBe('*')
    expect(
      loadConfig({ NODE_ENV: 'production', UPSTREAM_URL: 'https://api.example.test' }).corsOrigins,
    ).toEqual([])
  })

  describe('start-up warnings', () => {
    const production = {
      NODE_ENV: 'production',
      GATEWAY_SECRET: 'a secret of sixteen characters',
      UPSTREAM_URL: 'https://api.example.test',
    }
    const spends =
      /^UPSTREAM_TOKEN is set and no caller is verified .*anyone who reaches the gateway spends that token/

    it('in production, an UPSTREAM_TOKEN that anyone who reaches the gateway spends', () => {
      expect(startWarnings(loadConfig({ ...production, UPSTREAM_TOKEN: 't' }))).toEqual([
        expect.stringMatching(spends),
      ])
    })

    it('none once callers are verified, in pass-through, with the demo, or in development', () => {
      const keys = { AUTH_API_KEYS_FILE: '/etc/gateway/keys.json' }
      expect(startWarnings(loadConfig({ ...production, UPSTREAM_TOKEN: 't', ...keys }))).toEqual([])
      expect(startWarnings(loadConfig({ ...production, UPSTREAM_TOKEN: 't', ...jwt }))).toEqual([])
      expect(startWarnings(loadConfig(production))).toEqual([])
      expect(startWarnings(loadConfig({ ...production, UPSTREAM_URL: '' }))).toEqual([])
      expect(
        startWarnings(loadConfig({ UPSTREAM_TOKEN: 't', UPSTREAM_URL: production.UPSTREAM_URL })),
      ).toEqual([])
    })

    it('in production, the development GATEWAY_SECRET', () => {
      expect(startWarnings(loadConfig({ NODE_ENV: 'production' }))).toEqual([
        expect.stringMatching(/^GATEWAY_SECRET is unset/),
      ])
    })
  })
})
