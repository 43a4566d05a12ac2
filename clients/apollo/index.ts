/** The Apollo Client kit for the gateway: copy this folder into the app (docs/clients.md). */
export { type ClientOptions, createApolloClient, responseLogOf } from './client.js'
export { errorsAt, type GatewayError, type ResponseInfo } from './gateway-answers.js'
export { gatewayErrors, useLoadMore, useResponseInfo } from './hooks.js'
export { gatewayLink, headersLink } from './link.js'
export { connection, possibleTypes, typePolicies } from './type-policies.js'
