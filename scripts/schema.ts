import { readFile, writeFile } from 'node:fs/promises'
import { loadConfig } from '../src/config.js'
import { createGateway } from '../src/gateway.js'
import { printServedSchema } from '../src/http/use-served-schema.js'
import { subgraph } from '../src/schema/subgraph.js'

/**
 * Prints schema.graphql (the schema the gateway serves) and schema.subgraph.graphql (its SDL as
 * a federation subgraph, SUBGRAPH=true). With --check, writes nothing and fails when a committed
 * file differs, so a stale schema cannot land.
 */
// Built as src/main.ts builds it; printing the schema sends no request to the upstream.
const gateway = createGateway({ ...loadConfig({}), upstreamUrl: 'http://127.0.0.1:9' })
const files = {
  'schema.graphql': printServedSchema(gateway.yoga.getEnveloped({}).schema),
  'schema.subgraph.graphql': subgraph().sdl,
}
await gateway.close()

const check = process.argv.includes('--check')
let stale = false
for (const [name, printed] of Object.entries(files)) {
  const file = new URL(`../${name}`, import.meta.url)
  if (!check) {
    await writeFile(file, printed)
    console.log(`Wrote ${name}.`)
  } else if ((await readFile(file, 'utf8').catch(() => '')) !== printed) {
    console.error(`${name} is stale: run \`npm run schema\` and commit the result.`)
    stale = true
  } else console.log(`${name} is up to date.`)
}
if (stale) process.exit(1)
