import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases'
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth'
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives'
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens'
import { renderGraphiQL } from '@graphql-yoga/render-graphiql'
import { GraphQLError, type ValidationContext } from 'graphql'
import { createYoga, useReadinessCheck } from 'graphql-yoga'
import type { Config } from './config.js'
import { type Context, contextFactory } from './context.js'
import { useUpstreamCost } from './cost.js'
import { maskError } from './errors.js'
import { type Logger, useOperationLog, yogaLogger } from './logger.js'
import { schema } from './schema/index.js'
import { UpstreamClient } from './upstream/client.js'

/** What GraphiQL opens with: the walk the gateway is for, on the demo data of `npm start`. */
export const EXAMPLE_QUERY = `# Your lists, then one list → its companies → their latest statement,
# best lookalikes and shareholders, in one query. Open the Docs pane for every field.
query Traversal {
  lists(first: 5) {
    totalCount
    nodes { listId name type companyCount }
  }
  list(listId: 1001) {
    name
    companies(first: 5) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges {
        matchedSince
        node {
          name
          place
          financials(first: 1) {
            nodes { endDate profitability { revenue netProfit } people { employees } }
          }
          lookalikes(first: 3) { edges { score node { name place } } }
          shareholders { name percentage company { name } }
        }
      }
    }
  }
}
`

/** Fixed limits on the shape of an operation (see README, Limits). */
const MAX_TOKENS = 2000
const MAX_DIRECTIVES = 20

/**
 * graphql-armor throws its rejections out of validation, where they lose any code; reported as
 * validation errors instead, they carry GRAPHQL_VALIDATION_FAILED like every other one.
 */
const reportAsValidationError = {
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) =>
      context?.reportError(
        new GraphQLError(error.message.replace(/^Syntax Error: /, ''), {
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        }),
      ),
  ],
}

export type GatewayConfig = Omit<Config, 'port' | 'host' | 'logLevel' | 'upstreamUrl'> & {
  upstreamUrl: string
}

/**
 * Builds the gateway: the yoga server and the one upstream client it owns. No port: serve it
 * with node:http (src/main.ts) or call `yoga.fetch` directly (tests).
 */
export function createGateway(config: GatewayConfig, logger?: Logger) {
  const client = new UpstreamClient({
    baseUrl: config.upstreamUrl,
    serviceToken: config.upstreamToken,
    languageHeader: config.upstreamLanguageHeader,
    timeoutMs: config.upstreamTimeoutMs,
    maxConnections: config.upstreamMaxConnections,
    maxResponseBytes: config.upstreamMaxResponseBytes,
    logger,
  })
  const yoga = createYoga<Record<string, never>, Context>({
    schema,
    context: contextFactory(client),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: { title: 'Company data gateway', defaultQuery: EXAMPLE_QUERY },
    // GraphiQL's assets are served from the package, so it works with no internet access.
    renderGraphiQL,
    maxRequestBodySize: config.maxBodyBytes,
    // One operation per request: a batch would multiply the upstream work past the cost check.
    batching: false,
    plugins: [
      // /health (liveness) is yoga's own; ready means the upstream answers at all.
      useReadinessCheck({ endpoint: '/ready', check: () => client.reachable() }),
      maxTokensPlugin({ n: MAX_TOKENS }),
      maxDepthPlugin({ n: config.maxDepth, flattenFragments: true, ...reportAsValidationError }),
      maxAliasesPlugin({ n: config.maxAliases, allowList: [], ...reportAsValidationError }),
      maxDirectivesPlugin({ n: MAX_DIRECTIVES, ...reportAsValidationError }),
      useUpstreamCost(config.maxOperationCost),
      ...(logger ? [useOperationLog(logger)] : []),
    ],
    maskedErrors: { maskError, isDev: !config.production },
    logging: logger ? yogaLogger(logger) : false,
  })
  return {
    yoga,
    client,
    close: () => client.close(),
  }
}
