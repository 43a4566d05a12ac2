import { Environment, type IEnvironment, RecordSource, Store } from 'relay-runtime'
import { FailedPages, handlerProvider } from './connection-handler.js'
import { ResponseLog } from './gateway-answers.js'
import { createNetwork, type NetworkOptions } from './network.js'

/** What the kit keeps per environment, for its hooks. */
export interface GatewayRecords {
  log: ResponseLog
  failedPages: FailedPages
}

const records = new WeakMap<IEnvironment, GatewayRecords>()

/** The kit's records of an environment made by createEnvironment. */
export function gatewayRecords(environment: IEnvironment): GatewayRecords {
  const found = records.get(environment)
  if (!found) throw new Error('This Relay environment was not made by createEnvironment.')
  return found
}

/**
 * A Relay environment for the gateway: its network layer (@defer/@stream, persisted documents,
 * refusals as errors), a store, and the connection handler that keeps rows when a page fails.
 */
export function createEnvironment(options: Omit<NetworkOptions, 'log'>): Environment {
  const log = new ResponseLog()
  const failedPages = new FailedPages()
  const environment = new Environment({
    network: createNetwork({ ...options, log }),
    store: new Store(new RecordSource()),
    handlerProvider: handlerProvider(failedPages),
  })
  records.set(environment, { log, failedPages })
  return environment
}
