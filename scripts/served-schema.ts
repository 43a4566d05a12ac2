import { printSchemaWithDirectives } from '@graphql-tools/utils'
import type { createGateway } from '../src/gateway.js'

/**
 * The schema a gateway serves, as schema.graphql holds it: the one its yoga executes against
 * (the Pothos schema plus what its plugins add, such as @defer and @stream), printed with the
 * directive definitions and the directives applied to types and fields.
 */
export function printServedSchema(gateway: ReturnType<typeof createGateway>): string {
  return `${printSchemaWithDirectives(gateway.yoga.getEnveloped({}).schema)}\n`
}
