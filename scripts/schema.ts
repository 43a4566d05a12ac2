import { readFile, writeFile } from 'node:fs/promises'
import { printSchema } from 'graphql'
import { schema } from '../src/schema/index.js'

/**
 * Prints schema.graphql from the Pothos builder (types sorted). With --check, writes nothing and
 * fails when the committed file differs, so a stale schema cannot land.
 */
const file = new URL('../schema.graphql', import.meta.url)
const printed = `${printSchema(schema)}\n`

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
