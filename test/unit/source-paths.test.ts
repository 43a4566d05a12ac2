import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * Every `src/….ts` path that a comment or a page of docs/ names is a file that exists: after the
 * reorganisation (issue 19) a comment that points to a file that is gone sends a newcomer
 * nowhere. Decision records are history and may name removed files.
 */

const root = fileURLToPath(new URL('../../', import.meta.url))

async function filesUnder(folder: string, ending: RegExp): Promise<string[]> {
  const entries = await readdir(`${root}${folder}`, { recursive: true, withFileTypes: true })
  return entries
    .filter((e) => e.isFile() && ending.test(e.name))
    .map((e) => `${e.parentPath}/${e.name}`.slice(root.length))
}

describe('paths named in comments and docs', () => {
  it('are files that exist', async () => {
    const files = [
      ...(await filesUnder('src', /\.ts$/)),
      ...(await filesUnder('scripts', /\.(ts|mjs)$/)),
      ...(await filesUnder('docs', /\.md$/)).filter((f) => !f.startsWith('docs/decisions/')),
      'README.md',
    ]
    const missing: string[] = []
    for (const file of files) {
      const text = await readFile(`${root}${file}`, 'utf8')
      for (const [path] of text.matchAll(/\bsrc\/[A-Za-z0-9_/.-]*\.ts\b/g)) {
        if (!existsSync(`${root}${path}`)) missing.push(`${file}: ${path}`)
      }
    }
    expect(missing).toEqual([])
  })
})
