import type { Plugin } from 'graphql-yoga'
import type { GatewayMetrics } from '../observability/metrics.js'

/** Serves the metrics at `path` (GET), before the GraphQL pipeline. */
export function useMetricsEndpoint(metrics: GatewayMetrics, path = '/metrics'): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== path || request.method !== 'GET') return
      const { contentType, body } = await metrics.scrape()
      endResponse(new fetchAPI.Response(body, { headers: { 'content-type': contentType } }))
    },
  }
}
