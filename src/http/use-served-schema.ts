import { printSchemaWithDirectives } from '@graphql-tools/utils'
import type { GraphQLSchema } from 'graphql'
import type { Plugin } from 'graphql-yoga'

/** Where code generators read the schema (contract/runtime.md). */
export const SCHEMA_PATH = '/graphql/schema.graphql'

/** The schema yoga executes against, with the applied directives introspection cannot carry. */
export function printServedSchema(schema: GraphQLSchema): string {
  return `${printSchemaWithDirectives(schema)}\n`
}

/** Serves the printed schema (a subgraph's SDL in that mode), printed once per schema. */
export function useServedSchema(
  print: (schema: GraphQLSchema) => string = printServedSchema,
): Plugin {
  let schema: GraphQLSchema | undefined
  let printed: { schema: GraphQLSchema; text: string } | undefined
  return {
    // Called again whenever a plugin replaces the schema (@defer and @stream added): the last wins.
    onSchemaChange(change) {
      schema = change.schema
    },
    onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== SCHEMA_PATH || !schema) return
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }))
        return
      }
      if (printed?.schema !== schema) printed = { schema, text: print(schema) }
      endResponse(
        new fetchAPI.Response(request.method === 'HEAD' ? null : printed.text, {
          headers: { 'content-type': 'text/plain; charset=utf-8' },
        }),
      )
    },
  }
}
