#!/usr/bin/env node
// Writes the gateway's schema (GET /graphql/schema.graphql) to a file for relay-compiler, which
// reads only a local file: `node fetch-schema.mjs http://localhost:4000/graphql schema.graphql`.
// The printed schema keeps the uses of @semanticNonNull, which introspection would lose.
import { writeFile } from 'node:fs/promises'

const [graphqlUrl = 'http://localhost:4000/graphql', file = 'schema.graphql'] =
  process.argv.slice(2)
const url = `${graphqlUrl.replace(/\/+$/, '')}/schema.graphql`
const response = await fetch(url)
if (!response.ok) {
  console.error(`GET ${url}: HTTP ${response.status}`)
  process.exit(1)
}
await writeFile(file, await response.text())
console.log(`Wrote ${file} from ${url}.`)
