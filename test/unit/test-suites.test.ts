import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import config from '../../vitest.config.js'

/**
 * The suite is three vitest projects, each runnable alone (`npm run test:unit`, `test:feature`,
 * `test:e2e`). A test file no project includes would never run: each belongs to exactly one.
 */
const root = new URL('../../', import.meta.url)
const projects = (config.test?.projects ?? []) as { test: { name: string; include: string[] } }[]
const folderOf = (project: (typeof projects)[number]) =>
  /^test\/([a-z0-9-]+)\/\*\*\/\*\.test\.ts$/.exec(project.test.include[0] ?? '')?.[1]

describe('vitest projects', () => {
  it('are unit, feature and e2e, each a folder of test/', () => {
    expect(projects.map((p) => [p.test.name, folderOf(p)])).toEqual([
      ['unit', 'unit'],
      ['feature', 'feature'],
      ['e2e', 'e2e'],
    ])
  })

  it('include every test file of the repository', () => {
    const files = (readdirSync(new URL('test', root), { recursive: true }) as string[]).filter(
      (f) => f.endsWith('.test.ts'),
    )
    expect(files.length).toBeGreaterThan(30)
    const homeless = files.filter((f) => !projects.some((p) => f.startsWith(`${folderOf(p)}/`)))
    expect(homeless).toEqual([])
  })
})
