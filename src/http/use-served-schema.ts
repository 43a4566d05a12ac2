import { printSchemaWithDirectives } from '@graphql-tools/utils'
import type { GraphQLSchema } from 'graphql'
import type { Plugin } from 'graphql-yoga'

/** Where code generators read the schema (contract/runtime.md). */
export const SCHEMA_PATH = '/graphql/schema.graphql'

/**
 * The schema as schema.graphql holds it: the one yoga executes against (the Pothos schema plus
 * what plugins add, such as @defer and @stream), with directive definitions and the directives
 * applied to types and fields (@semanticNonNull), which introspection cannot carry.
 */
export function printServedSchema(schema: GraphQLSchema): string {
  return `${printSchemaWithDirectives(schema)}\n`
}

export interface ServedSchemaOptions {
  path?: string
  /** What is served for the schema yoga executes against (a subgraph's SDL, in that mode). */
  print?: (schema: GraphQLSchema) => string
}

/**
 * Serves the printed schema at `path` (GET and HEAD, `text/plain`), before the GraphQL pipeline:
 * codegen and relay-compiler read the applied directives from it. Printed once per schema.
 */
export function useServedSchema({
  path = SCHEMA_PATH,
  print = printServedSchema,
}: ServedSchemaOptions = {}): Plugin {
  let schema: GraphQLSchema | undefined
  let printed: { schema: GraphQLSchema; text: string } | undefined
  return {
    // Called again whenever a plugin replaces the schema (@defer and @stream added): the last wins.
    onSchemaChange(change) {
      schema = change.schema
    },
    onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== path || !schema) return
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
