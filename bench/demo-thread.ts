import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import type { Fault } from '../src/demo-upstream/faults.js'
import type { ReceivedCall } from '../src/demo-upstream/server.js'

/**
 * The demo upstream on its own thread, so that timing measures the gateway and not the demo
 * sharing its event loop, as a real upstream would not.
 */
export interface DemoThread {
  url: string
  calls(): Promise<ReceivedCall[]>
  reset(): Promise<void>
  setLatency(ms: number): Promise<void>
  /** Until the next reset (a RegExp path crosses to the thread as it is). */
  inject(fault: Fault): Promise<void>
  stop(): Promise<void>
}

export async function startDemoThread(): Promise<DemoThread> {
  // Worker threads do not inherit the TypeScript loader: register tsx, then load the entry.
  const entry = new URL('./demo-thread-entry.ts', import.meta.url).href
  const worker = new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}) })`,
    { eval: true },
  )
  const [{ url }] = (await once(worker, 'message')) as [{ url: string }]
  let next = 0
  const ask = async (op: string, ms?: number, fault?: Fault): Promise<unknown> => {
    const id = next++
    const answer = new Promise((resolve) => {
      const onMessage = (message: { id: number; result: unknown }) => {
        if (message.id !== id) return
        worker.off('message', onMessage)
        resolve(message.result)
      }
      worker.on('message', onMessage)
    })
    worker.postMessage({ id, op, ms, fault })
    return answer
  }
  return {
    url,
    calls: () => ask('calls') as Promise<ReceivedCall[]>,
    reset: async () => void (await ask('reset')),
    setLatency: async (ms) => void (await ask('latency', ms)),
    inject: async (fault) => void (await ask('inject', undefined, fault)),
    stop: async () => {
      await ask('stop')
      await worker.terminate()
    },
  }
}
