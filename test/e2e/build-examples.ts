import type { TestProject } from 'vitest/node'
import { buildExample, chromiumAvailable } from '../support/browser.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folders the example apps were built into (test/e2e/examples.test.ts serves them). */
    examples: { relay: string; apollo: string } | undefined
  }
}

/**
 * Global setup of the e2e project: the example apps built as `vite build` builds them, before any
 * e2e test starts, so that the builds' burst of work does not overlap the tests that start
 * processes. Nothing to build where no Chromium can run them.
 */
export default async function buildExamples(project: TestProject) {
  if (!chromiumAvailable) return project.provide('examples', undefined)
  const relay = await buildExample('relay')
  const apollo = await buildExample('apollo')
  project.provide('examples', { relay, apollo })
}
