import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse, parseAllDocuments } from 'yaml'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import { root } from '../support/process.js'

/**
 * What operators rely on when they deploy: docker-compose.yml (two gateway replicas sharing one
 * Redis in front of the demo upstream), the Dockerfile (contract/runtime.md), .dockerignore, and
 * the Kubernetes manifests (deploy/kubernetes/gateway.yaml).
 */

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

  it('builds and serves on Node 24, the active LTS (contract/runtime.md)', () => {
    const args = new Map(
      instructions
        .filter((line) => keyword(line) === 'ARG')
        .map(
          (line) => line.slice('ARG'.length).trim().split('=', 2) as [string, string | undefined],
        ),
    )
    const images = froms.map((index) =>
      (instructions[index]?.split(/\s+/)[1] ?? '').replace(/^\$\{(\w+)\}$/, (_, name: string) =>
        String(args.get(name)),
      ),
    )
    for (const image of images) expect(image).toMatch(/^node:24[-.]/)
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

interface K8sProbe {
  httpGet?: { path?: string; port?: number | string }
}

interface K8sContainer {
  name: string
  image?: string
  ports?: { name?: string; containerPort: number }[]
  envFrom?: { configMapRef?: { name?: string }; secretRef?: { name?: string } }[]
  env?: {
    name: string
    value?: string
    valueFrom?: {
      configMapKeyRef?: { name?: string; key?: string }
      secretKeyRef?: { name?: string; key?: string }
    }
  }[]
  livenessProbe?: K8sProbe
  readinessProbe?: K8sProbe
  lifecycle?: { preStop?: { exec?: { command?: string[] }; sleep?: { seconds?: number } } }
  resources?: {
    requests?: { cpu?: string | number; memory?: string | number }
    limits?: { cpu?: string | number; memory?: string | number }
  }
  securityContext?: {
    runAsNonRoot?: boolean
    runAsUser?: number
    allowPrivilegeEscalation?: boolean
    readOnlyRootFilesystem?: boolean
  }
}

interface K8sObject {
  apiVersion: string
  kind: string
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }
  data?: Record<string, unknown>
  spec?: {
    replicas?: number
    selector?: { matchLabels?: Record<string, string> } | Record<string, string>
    template?: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }
      spec: {
        terminationGracePeriodSeconds?: number
        securityContext?: { runAsNonRoot?: boolean; runAsUser?: number }
        containers: K8sContainer[]
      }
    }
    type?: string
    ports?: { name?: string; port: number; targetPort?: number | string }[]
  }
}

/** The backticked names in the first column of contract/runtime.md's settings table. */
function contractSettings(): Set<string> {
  const lines = read('contract/runtime.md').split(/\r?\n/)
  const heading = lines.findIndex((line) => /^##\s+Settings\b/.test(line))
  if (heading < 0) throw new Error('contract/runtime.md has no Settings section')
  const names = new Set<string>()
  let inTable = false
  for (const line of lines.slice(heading + 1)) {
    if (line.startsWith('#')) break
    if (!line.trim().startsWith('|')) {
      if (inTable) break
      continue
    }
    inTable = true
    // A row may name several settings: `AUTH_JWKS_URL`, `AUTH_ISSUER`, `AUTH_AUDIENCE`.
    const first = line.trim().split('|')[1] ?? ''
    for (const [, name = ''] of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(name)
  }
  return names
}

describe('Kubernetes manifests', () => {
  const documents = parseAllDocuments(read('deploy/kubernetes/gateway.yaml'))
  const list = Array.isArray(documents) ? documents : []
  const objects = list.map((doc) => doc.toJS() as K8sObject | null).filter((o) => o !== null)
  const named = 'company-data-gateway'
  const find = (kind: string) => {
    const object = objects.find((o) => o.kind === kind && o.metadata?.name === named)
    if (!object) throw new Error(`deploy/kubernetes/gateway.yaml has no ${kind} ${named}`)
    return object
  }
  const deployment = find('Deployment')
  const configMap = find('ConfigMap')
  const service = find('Service')
  const pod = deployment.spec?.template
  const containers = pod?.spec.containers ?? []
  const container = containers[0]
  if (!container) throw new Error(`Deployment ${named} has no container`)
  const containerPort = container.ports?.[0]

  /** A probe's or a Service's port, named or numbered, as the container port number it means. */
  const portNumber = (port: number | string | undefined) =>
    typeof port === 'string' && !/^\d+$/.test(port)
      ? container.ports?.find((p) => p.name === port)?.containerPort
      : port === undefined
        ? undefined
        : Number(port)

  /** How long the preStop hook holds the pod before SIGTERM, in seconds. */
  const preStopSeconds = () => {
    const preStop = container.lifecycle?.preStop
    if (preStop?.sleep?.seconds !== undefined) return preStop.sleep.seconds
    const command = preStop?.exec?.command ?? []
    expect(command[0]).toMatch(/(^|\/)sleep$/)
    const seconds = Number(command[1])
    expect(Number.isFinite(seconds)).toBe(true)
    return seconds
  }

  it('parses, and holds the Deployment, ConfigMap and Service (no Secret)', () => {
    expect(list.length).toBeGreaterThanOrEqual(3)
    for (const doc of list) expect(doc.errors).toEqual([])
    expect(deployment.apiVersion).toBe('apps/v1')
    expect(configMap.apiVersion).toBe('v1')
    expect(service.apiVersion).toBe('v1')
    // Credentials are created with kubectl, never committed.
    expect(objects.some((o) => o.kind === 'Secret')).toBe(false)
  })

  it('runs two replicas of the gateway image on port 4000', () => {
    expect(deployment.spec?.replicas).toBe(2)
    expect(containers).toHaveLength(1)
    expect(container.image).toMatch(/^company-data-gateway[:@]/)
    expect(containerPort?.containerPort).toBe(4000)
    // The Deployment's selector picks its own pods.
    const selector = (
      deployment.spec?.selector as { matchLabels?: Record<string, string> } | undefined
    )?.matchLabels
    expect(selector).toBeDefined()
    expect(pod?.metadata?.labels).toMatchObject(selector ?? {})
  })

  it('probes liveness on /health and readiness on /ready at the container port', () => {
    expect(container.livenessProbe?.httpGet?.path).toBe('/health')
    expect(portNumber(container.livenessProbe?.httpGet?.port)).toBe(containerPort?.containerPort)
    expect(container.readinessProbe?.httpGet?.path).toBe('/ready')
    expect(portNumber(container.readinessProbe?.httpGet?.port)).toBe(containerPort?.containerPort)
  })

  it('sets resource requests and limits for cpu and memory', () => {
    for (const kind of ['requests', 'limits'] as const) {
      expect(container.resources?.[kind]?.cpu).toBeDefined()
      expect(container.resources?.[kind]?.memory).toBeDefined()
    }
  })

  it('gives the pod longer to stop than the preStop sleep and the drain together', () => {
    const grace = pod?.spec.terminationGracePeriodSeconds
    const shutdownMs = Number(configMap.data?.SHUTDOWN_TIMEOUT_MS)
    expect(Number.isInteger(shutdownMs) && shutdownMs > 0).toBe(true)
    expect(typeof grace).toBe('number')
    expect((grace as number) * 1000).toBeGreaterThan(shutdownMs + preStopSeconds() * 1000)
  })

  it('runs as non-root, read-only, without privilege escalation', () => {
    const podContext = pod?.spec.securityContext
    const runAsNonRoot = container.securityContext?.runAsNonRoot ?? podContext?.runAsNonRoot
    expect(runAsNonRoot).toBe(true)
    // The image's USER is a name (node): runAsNonRoot needs a numeric uid to be verified.
    const uid = container.securityContext?.runAsUser ?? podContext?.runAsUser
    expect(typeof uid === 'number' && uid > 0).toBe(true)
    expect(container.securityContext?.readOnlyRootFilesystem).toBe(true)
    expect(container.securityContext?.allowPrivilegeEscalation).toBe(false)
  })

  it('exposes the container port through a ClusterIP Service on port 80', () => {
    expect(service.spec?.type ?? 'ClusterIP').toBe('ClusterIP')
    expect(pod?.metadata?.labels).toMatchObject(
      (service.spec?.selector as Record<string, string> | undefined) ?? { missing: 'selector' },
    )
    const port = service.spec?.ports?.find((p) => p.port === 80)
    expect(port?.name).toBe('http')
    expect(portNumber(port?.targetPort ?? port?.port)).toBe(containerPort?.containerPort)
  })

  it('sets only settings named in contract/runtime.md, from the ConfigMap and the Secret', () => {
    const settings = contractSettings()
    expect(settings).toContain('SHUTDOWN_TIMEOUT_MS')
    expect(settings).toContain('PERSISTED_DOCUMENTS')
    expect(settings).toContain('AUTH_AUDIENCE')
    const names: string[] = []
    for (const source of container.envFrom ?? []) {
      // Every key of the ConfigMap becomes a variable; a Secret referenced whole could hide keys.
      expect(source.secretRef).toBeUndefined()
      expect(source.configMapRef?.name).toBe(named)
      names.push(...Object.keys(configMap.data ?? {}))
    }
    for (const entry of container.env ?? []) {
      names.push(entry.name)
      const ref = entry.valueFrom?.configMapKeyRef ?? entry.valueFrom?.secretKeyRef
      if (ref) expect(ref.name).toBe(named)
    }
    expect(names).toEqual(expect.arrayContaining(['UPSTREAM_URL', 'SHUTDOWN_TIMEOUT_MS']))
    expect(names).toEqual(expect.arrayContaining(['UPSTREAM_TOKEN', 'GATEWAY_SECRET']))
    expect(names.filter((name) => !settings.has(name))).toEqual([])
    // A ConfigMap holds strings only: an unquoted 20000 or true is refused by the API server.
    for (const [key, value] of Object.entries(configMap.data ?? {})) {
      expect([key, typeof value]).toEqual([key, 'string'])
    }
    // The credentials come from the Secret, never in plain text.
    for (const secret of ['UPSTREAM_TOKEN', 'GATEWAY_SECRET']) {
      expect(configMap.data ?? {}).not.toHaveProperty(secret)
      const entry = container.env?.find((e) => e.name === secret)
      expect(entry?.valueFrom?.secretKeyRef).toMatchObject({ name: named, key: secret })
    }
  })

  it('tells Prometheus to scrape /metrics on the container port', () => {
    const annotations = pod?.metadata?.annotations ?? {}
    expect(annotations['prometheus.io/scrape']).toBe('true')
    expect(annotations['prometheus.io/path']).toBe('/metrics')
    expect(Number(annotations['prometheus.io/port'])).toBe(containerPort?.containerPort)
  })
})
