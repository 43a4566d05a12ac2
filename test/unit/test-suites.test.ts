import { describe, expect, it } from 'vitest'
import config from '../../vitest.config.js'

/**
 * Issue 19: "Unit, feature and process-level (end-to-end) suites as vitest projects so each can
 * be run alone" (`npx vitest run --project <name>`).
 */
describe('vitest projects', () => {
  it('split the suite into unit, feature and end-to-end projects', () => {
    const projects = config.test?.projects ?? []
    expect(projects.length).toBeGreaterThanOrEqual(3)
  })
})
