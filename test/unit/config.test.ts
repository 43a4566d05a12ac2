import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'

/** Settings from the environment (contract/runtime.md): the defaults, and a bad one refused. */

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
      shutdownTimeoutMs: 10_000,
      persistedDocuments: undefined,
      persistedDocumentsOnly: false,
      graphiql: true,
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
  ])('refuses %s=%s with one line naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`^Invalid setting ${name}: [^\\n]+$`),
    )
  })
})
