import { readFile, writeFile } from 'node:fs/promises'
import { loadConfig } from '../src/config.js'
import { createGateway } from '../src/gateway.js'
import { printServedSchema } from '../src/http/use-served-schema.js'

/**
 * Prints schema.graphql: the schema the gateway serves. With --check, writes nothing and fails
 * when the committed file differs, so a stale schema cannot land.
 */
const file = new URL('../schema.graphql', import.meta.url)
// Built as src/main.ts builds it; printing the schema sends no request to the upstream.
const gateway = createGateway({ ...loadConfig({}), upstreamUrl: 'http://127.0.0.1:9' })
const printed = printServedSchema(gateway.yoga.getEnveloped({}).schema)
await gateway.close()

if (process.argv.includes('--check')) {
  const committed = await readFile(file, 'utf8').catch(() => '')
  if (committed !== printed) {
    console.error('schema.graphql is stale: run `npm run schema` and commit the result.')
    process.exit(1)
  }
  console.log('schema.graphql is up to date.')
} else {
  await writeFile(file, printed)
  console.log('Wrote schema.graphql.')
}
