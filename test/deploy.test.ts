import type { ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { DEMO_TOKEN } from '../src/demo-upstream/server.js'
import { freePort, startEntry } from './support/process.js'

/**
 * What operators rely on when they deploy: docker-compose.yml (two gateway replicas sharing one
 * Redis in front of the demo upstream), the Dockerfile (contract/runtime.md), .dockerignore, and
 * the demo upstream run as a process of its own (src/demo-upstream/main.ts).
 */

const root = new URL('../', import.meta.url)
const read = (path: string) => readFileSync(new URL(path, root), 'utf8')

interface Service {
  image?: string
  build?: string | { context?: string; dockerfile?: string }
  command?: string | string[]
  environment?: Record<string, string | number | boolean | null> | string[]
  ports?: (string | { published?: string | number; target?: string | number })[]
  depends_on?: string[] | Record<string, { condition?: string }>
  healthcheck?: { test?: string | string[]; disable?: boolean }
}

/** The environment of a service as a map, whichever of the two compose forms it is written in. */
function environment(service: Service): Record<string, string> {
  const env = service.environment ?? {}
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) => {
        const at = entry.indexOf('=')
        return at < 0 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)]
      }),
    )
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]))
}

/** The host side of each published port (`"4001:4000"`, `"127.0.0.1:4001:4000"` or long form). */
function ports(service: Service): { host: string; container: string }[] {
  return (service.ports ?? []).map((port) => {
    if (typeof port === 'object') {
      return { host: String(port.published), container: String(port.target) }
    }
    const parts = port.split('/')[0]?.split(':') ?? []
    return { host: parts.at(-2) ?? '', container: parts.at(-1) ?? '' }
  })
}

function buildOf(service: Service) {
  const build = typeof service.build === 'string' ? { context: service.build } : service.build
  return { context: build?.context, dockerfile: build?.dockerfile ?? 'Dockerfile' }
}

describe('docker-compose.yml', () => {
  // Compose resolves YAML merge keys (`<<: *gateway`); so must the parser.
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, Service>
  }
  const services = compose.services
  const gateways = ['gateway-1', 'gateway-2'].map((name) => {
    const service = services[name]
    if (!service) throw new Error(`docker-compose.yml has no service ${name}`)
    return service
  })
  const [one, two] = gateways as [Service, Service]

  it('runs two gateway replicas of one image built from this directory', () => {
    for (const gateway of gateways) {
      expect(buildOf(gateway)).toEqual({ context: '.', dockerfile: 'Dockerfile' })
      // The image's own CMD (node dist/main.js) is what runs.
      expect(gateway.command).toBeUndefined()
    }
    expect(one.image).toBe(two.image)
  })

  it('points both at one Redis, the redis service, and waits for it to be healthy', () => {
    const redis = services.redis
    expect(redis?.image).toMatch(/^redis:7/)
    expect(redis?.healthcheck?.test).toEqual(expect.arrayContaining(['redis-cli', 'ping']))
    const urls = gateways.map((gateway) => environment(gateway).REDIS_URL)
    expect(urls[0]).toBeDefined()
    expect(urls[1]).toBe(urls[0])
    const url = new URL(urls[0] as string)
    expect(url.protocol).toBe('redis:')
    expect(url.hostname).toBe('redis')
    expect(url.port).toBe('6379')
    for (const gateway of gateways) {
      expect(gateway.depends_on).toMatchObject({ redis: { condition: 'service_healthy' } })
    }
  })

  it('gives both the same GATEWAY_SECRET, long enough for the gateway to accept it', () => {
    const secrets = gateways.map((gateway) => environment(gateway).GATEWAY_SECRET)
    expect(secrets[0]?.length).toBeGreaterThanOrEqual(16)
    expect(secrets[1]).toBe(secrets[0])
  })

  it('points both at the upstream service, which runs the demo upstream from the same image', () => {
    const upstream = services.upstream
    if (!upstream) throw new Error('docker-compose.yml has no service upstream')
    expect(buildOf(upstream)).toEqual(buildOf(one))
    expect(upstream.image).toBe(one.image)
    expect(upstream.command).toEqual(['node', 'dist/demo-upstream/main.js'])
    // The command runs the compiled src/demo-upstream/main.ts.
    expect(existsSync(new URL('src/demo-upstream/main.ts', root))).toBe(true)
    const upstreamEnv = environment(upstream)
    expect(upstreamEnv.HOST).toBe('0.0.0.0')
    for (const gateway of gateways) {
      const env = environment(gateway)
      const url = new URL(env.UPSTREAM_URL ?? '')
      expect(url.hostname).toBe('upstream')
      expect(url.port).toBe(upstreamEnv.PORT)
      expect(env.UPSTREAM_TOKEN).toBe(DEMO_TOKEN)
      expect(gateway.depends_on).toHaveProperty('upstream')
    }
  })

  it('publishes the replicas on distinct host ports, each to the gateway port 4000', () => {
    const published = gateways.flatMap(ports)
    expect(published).toHaveLength(2)
    expect(published.map((port) => port.container)).toEqual(['4000', '4000'])
    expect(new Set(published.map((port) => port.host)).size).toBe(2)
  })
})

describe('Dockerfile', () => {
  // Continuation lines joined, comments and blank lines dropped.
  const instructions = read('Dockerfile')
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
  const keyword = (line: string) => line.split(/\s+/, 1)[0]?.toUpperCase()
  const froms = instructions.flatMap((line, index) => (keyword(line) === 'FROM' ? [index] : []))
  const finalStage = instructions.slice(froms.at(-1) ?? 0)
  const inFinal = (word: string) => finalStage.filter((line) => keyword(line) === word)

  it('is multi-stage: the build in one stage, the image served from another', () => {
    expect(froms.length).toBeGreaterThanOrEqual(2)
    const buildStage = instructions.slice(froms[0], froms[1])
    expect(buildStage.some((line) => /^RUN\b.*\bnpm run build\b/.test(line))).toBe(true)
  })

  it('installs production dependencies only in the final stage, and copies dist/', () => {
    expect(inFinal('RUN').some((line) => /\bnpm ci\b.*--omit=dev\b/.test(line))).toBe(true)
    expect(inFinal('COPY').some((line) => /--from=\S+\s+\S*dist\/?\s/.test(line))).toBe(true)
  })

  it('runs as a non-root user, bound to every interface', () => {
    const users = inFinal('USER')
    expect(users.length).toBeGreaterThan(0)
    const user = users.at(-1)?.split(/\s+/)[1]?.split(':')[0]
    expect(user).toBeDefined()
    expect(['root', '0']).not.toContain(user)
    expect(inFinal('ENV').some((line) => /\bHOST=0\.0\.0\.0\b/.test(line))).toBe(true)
  })

  it('has a HEALTHCHECK on /health', () => {
    const checks = inFinal('HEALTHCHECK')
    expect(checks).toHaveLength(1)
    expect(checks[0]).toMatch(/\bCMD\b/)
    expect(checks[0]).toContain('/health')
  })

  it('serves with exec-form CMD ["node", "dist/main.js"]', () => {
    const cmd = inFinal('CMD').at(-1)
    expect(cmd).toBeDefined()
    expect(JSON.parse((cmd as string).slice('CMD'.length).trim())).toEqual(['node', 'dist/main.js'])
  })

  it('has a .dockerignore that keeps node_modules (and dist) out of the context', () => {
    const entries = read('.dockerignore')
      .split(/\r?\n/)
      .map((line) => line.trim().replace(/^\/|\/$/g, ''))
    expect(entries).toContain('node_modules')
    expect(entries).toContain('dist')
  })
})

/** Runs src/demo-upstream/main.ts as operators do, settings from the environment. */
const startDemo = (env: Record<string, string>) =>
  startEntry('src/demo-upstream/main.ts', env, 'Demo upstream ready')

describe('the demo upstream as its own process', () => {
  const children: ChildProcess[] = []
  afterAll(() => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
  })

  let demo: ReturnType<typeof startDemo>
  let port: number
  let readyLine: string
  beforeAll(async () => {
    port = await freePort()
    demo = startDemo({ PORT: String(port), DEMO_LATENCY_MS: '1' })
    children.push(demo.child)
    readyLine = await demo.ready
  }, 60_000)

  it('logs its URL and the demo token, and its settings', () => {
    const url = `http://127.0.0.1:${port}`
    expect(readyLine).toContain(url)
    expect(readyLine).toContain(DEMO_TOKEN)
    expect(JSON.parse(readyLine)).toMatchObject({ url, latencyMs: 1 })
  })

  it('serves the REST interface to the demo token', async () => {
    const res = await request(`http://127.0.0.1:${port}/v1/lists`, {
      headers: { authorization: `Bearer ${DEMO_TOKEN}` },
    })
    expect(res.statusCode).toBe(200)
    const body = (await res.body.json()) as { data: unknown[]; pagination: unknown }
    expect(body.pagination).toEqual(expect.objectContaining({ offset: 0 }))
    expect(Array.isArray(body.data)).toBe(true)
    const anonymous = await request(`http://127.0.0.1:${port}/v1/lists`)
    await anonymous.body.dump()
    expect(anonymous.statusCode).toBe(401)
  })

  it('exits 0 on SIGTERM', async () => {
    demo.child.kill('SIGTERM')
    expect(await demo.exited).toBe(0)
  })

  it('stops with one line naming a bad variable', async () => {
    const bad = startDemo({ PORT: String(port), DEMO_LATENCY_MS: 'soon' })
    children.push(bad.child)
    expect(await bad.exited).toBe(1)
    const { stdout, stderr } = bad.output()
    expect(stdout).toBe('')
    expect(stderr.trim().split('\n')).toEqual([expect.stringContaining('DEMO_LATENCY_MS')])
  })
})
