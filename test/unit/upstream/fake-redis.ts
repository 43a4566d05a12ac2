import type { RedisLink } from '../../../src/upstream/redis.js'

/**
 * An in-memory stand-in for the one Redis connection (src/upstream/redis.ts), for the stages'
 * unit tests: the commands they send (GET by MGET, SET with PX/NX/GET, DEL, the unlock script),
 * keys expiring by Date.now (a fake clock moves them), and a switch the test flips. Commands
 * are counted. Feature tests use a real redis-server.
 */
export function fakeRedis() {
  const values = new Map<string, { value: string; until: number }>()
  const downListeners: (() => void)[] = []
  const commands: string[] = []
  let up = true
  const read = (key: string) => {
    const held = values.get(key)
    if (held && held.until <= Date.now()) values.delete(key)
    return values.get(key)?.value ?? null
  }
  const client = {
    get status() {
      return up ? 'ready' : 'end'
    },
    defineCommand() {},
    async mget(keys: string[]) {
      commands.push('mget')
      return keys.map(read)
    },
    async set(key: string, value: string, _px: 'PX', ms: number) {
      commands.push('set')
      values.set(key, { value, until: Date.now() + ms })
      return 'OK'
    },
    async del(key: string) {
      commands.push('del')
      return values.delete(key) ? 1 : 0
    },
    /** SET key value PX ms NX GET */
    async call(_set: string, key: string, value: string, _px: string, ms: number) {
      commands.push('set nx get')
      const held = read(key)
      if (held === null) values.set(key, { value, until: Date.now() + ms })
      return held
    },
    async gwUnlock(key: string, lock: string) {
      commands.push('unlock')
      return read(key) === lock ? Number(values.delete(key)) : 0
    },
  }
  const link = {
    client,
    get available() {
      return up
    },
    run<T>(command: (c: typeof client) => Promise<T>) {
      return up ? command(client) : Promise.reject(new Error('Redis is unavailable'))
    },
    async get(key: string) {
      if (!up) return undefined
      commands.push('mget')
      return read(key)
    },
    onDown: downListeners,
  }
  return {
    link: link as unknown as RedisLink,
    values,
    commands,
    /** Redis goes down (every waiter is told) or comes back. */
    set up(value: boolean) {
      up = value
      if (!value) for (const listener of downListeners) listener()
    },
  }
}
