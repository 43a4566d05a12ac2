import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'
import { root } from '../support/process.js'

/**
 * The typed documents the tests are written with, the same typed for a client that throws on
 * field errors, the Apollo example's, and the Relay artifacts of test/relay/ and examples/relay/
 * are current (as `npm run schema:check` checks).
 */

const run = (bin: string, args: string[]) =>
  promisify(execFile)(fileURLToPath(new URL(`node_modules/.bin/${bin}`, root)), args, { cwd: root })

it('the typed documents in test/gql, test/gql-semantic and examples/apollo/src/gql are what codegen.ts generates (run `npm run codegen`)', async () => {
  // The CLI's own --check: it generates in memory and lists the files that would change.
  await expect(run('graphql-codegen', ['--config', 'codegen.ts', '--check'])).resolves.toBeDefined()
})

it.each(['test/relay/relay.config.json', 'examples/relay/relay.config.json'])(
  'the Relay artifacts of %s are what relay-compiler generates (run `npm run codegen`)',
  async (config) => {
    // --validate compiles in memory and fails on an artifact that would change.
    await expect(run('relay-compiler', ['--validate', config])).resolves.toBeDefined()
  },
)
