import { parentPort } from 'node:worker_threads'
import type { Fault } from '../src/demo-upstream/faults.js'
import { DemoUpstream } from '../src/demo-upstream/server.js'

/** The demo upstream on a worker thread, driven by messages from bench/demo-thread.ts. */
const port = parentPort
if (!port) throw new Error('run me as a worker thread')
const demo = new DemoUpstream()
const url = await demo.start()

port.on(
  'message',
  async (message: {
    id: number
    op: 'calls' | 'reset' | 'latency' | 'inject' | 'stop'
    ms?: number
    fault?: Fault
  }) => {
    let result: unknown
    if (message.op === 'calls') result = demo.calls()
    if (message.op === 'inject' && message.fault) demo.inject(message.fault)
    if (message.op === 'reset') demo.reset()
    if (message.op === 'latency') demo.latencyMs = message.ms ?? 0
    if (message.op === 'stop') await demo.stop()
    port.postMessage({ id: message.id, result })
    if (message.op === 'stop') port.close()
  },
)
port.postMessage({ url })
