import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

/**
 * Three projects, each runnable alone (`npm run test:unit`, `test:feature`, `test:e2e`):
 * unit: pure functions and MockAgent, no server; feature: the gateway (yoga.fetch) on the demo
 * upstream over loopback, and Redis; e2e: processes as operators run them (dist/main.js, the
 * demo upstream's own process, npm start), and the files they deploy with.
 */
export default defineConfig({
  resolve: {
    // graphql 16 ships ESM (.mjs) and CJS (.js) builds; Node loads the CJS one for the packages
    // that import it (Pothos, yoga), so the tests must too, or two graphql instances collide.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    // The files wait far more than they compute (loopback HTTP, child processes, timers): more of
    // them at once than there are cores (vitest's default is one less than the cores).
    maxWorkers: Math.max(3, availableParallelism()),
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'feature', include: ['test/feature/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/build-dist.ts', 'test/e2e/build-examples.ts'],
          // Processes start and stop: slower than a request, much slower on a loaded machine.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
