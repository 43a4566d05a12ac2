import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'
import { root } from '../support/process.js'

/**
 * The typed documents the tests are written with, and the same typed for a client that throws on
 * field errors, are current (as `npm run schema:check` checks).
 */

it('the typed documents in test/gql and test/gql-semantic are what codegen.ts generates (run `npm run codegen`)', async () => {
  // The CLI's own --check: it generates in memory and lists the files that would change.
  const run = promisify(execFile)(
    fileURLToPath(new URL('node_modules/.bin/graphql-codegen', root)),
    ['--config', 'codegen.ts', '--check'],
    { cwd: root },
  )
  await expect(run).resolves.toBeDefined()
})
