/** The Relay kit for the gateway: copy this folder into the app (docs/clients.md). */
export { FailedPages, handlerProvider } from './connection-handler.js'
export { createEnvironment, gatewayRecords } from './environment.js'
export {
  errorsAt,
  type GatewayError,
  GatewayRequestError,
  type ResponseInfo,
} from './gateway-answers.js'
export { gatewayErrors, useLoadMore, useResponseInfo } from './hooks.js'
export { createNetwork, type NetworkOptions } from './network.js'
