import { execFile } from 'node:child_process'
import { appendFile, cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'

/**
 * The direction of imports is checked, not described (issue 19): `npm run check`'s
 * dependency-cruiser step must fail when a module imports against it. Each case plants one
 * import in a copy of src/ and runs the check there; the repository is left untouched.
 */

const root = fileURLToPath(new URL('../../', import.meta.url))
const depcruise = join(root, 'node_modules/.bin/depcruise')
const copies: string[] = []
afterEach(async () => {
  for (const dir of copies.splice(0)) await rm(dir, { recursive: true, force: true })
})

/** A copy of what the check reads, with node_modules linked. */
async function copyOfRepository(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'import-rules-'))
  copies.push(dir)
  await cp(join(root, 'src'), join(dir, 'src'), { recursive: true })
  for (const file of ['package.json', 'tsconfig.json', '.dependency-cruiser.cjs']) {
    await cp(join(root, file), join(dir, file))
  }
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

/** Whether the check passes in `dir`, with its output. */
async function check(dir: string): Promise<{ passes: boolean; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(
      depcruise,
      ['src', '--config', '.dependency-cruiser.cjs'],
      { cwd: dir },
    )
    return { passes: true, output: stdout }
  } catch (error) {
    return { passes: false, output: String((error as { stdout?: string }).stdout) }
  }
}

describe('npm run check’s import rules', () => {
  it('pass on the copy as it is (the harness itself works)', { timeout: 60_000 }, async () => {
    expect((await check(await copyOfRepository())).passes).toBe(true)
  })

  it.each([
    {
      // Caught today: shows a planted import is seen in the copy.
      violation: 'upstream/ importing graphql directly',
      file: 'src/upstream/errors.ts',
      planted: "import { GraphQLError } from 'graphql'\nexport const planted = GraphQLError\n",
    },
    {
      violation: 'upstream/ reaching graphql through the error helpers',
      file: 'src/upstream/errors.ts',
      planted: "export { codedError as planted } from '../errors/graphql-errors.js'\n",
    },
    {
      violation: 'a pure leaf (domain/) importing graphql, which upstream/resources/ imports',
      file: 'src/domain/keyed-hash.ts',
      planted: "import { GraphQLError } from 'graphql'\nexport const planted = GraphQLError\n",
    },
  ])('fail for $violation', { timeout: 60_000 }, async ({ file, planted }) => {
    const dir = await copyOfRepository()
    await appendFile(join(dir, file), planted)
    const { passes, output } = await check(dir)
    expect(passes, output).toBe(false)
  })

  it('fail for the demo upstream imported statically by main.ts (production’s import graph)', {
    timeout: 60_000,
  }, async () => {
    const dir = await copyOfRepository()
    const main = join(dir, 'src/main.ts')
    const typeOnly = "import type { DemoUpstream } from './demo-upstream/server.js'"
    const source = await readFile(main, 'utf8')
    expect(source).toContain(typeOnly)
    await writeFile(
      main,
      source.replace(
        typeOnly,
        "import { DemoUpstream } from './demo-upstream/server.js'\nexport const planted = DemoUpstream.name",
      ),
    )
    const { passes, output } = await check(dir)
    expect(passes, output).toBe(false)
  })
})
