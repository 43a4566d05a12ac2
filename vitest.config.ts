import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: {
    // graphql 16 ships ESM (.mjs) and CJS (.js) builds; Node loads the CJS one for the packages
    // that import it (Pothos, yoga), so the tests must too, or two graphql instances collide.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Production runs a document through graphql-js the first time it comes and compiled
    // (graphql-jit) after that; most tests send a document once. So the suite runs twice: as
    // production does, and with every document compiled from its first sighting
    // (test/support/stack.ts), so that each behaviour is checked through either executor.
    projects: [
      { extends: true, test: { name: 'graphql-js', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'compiled',
          include: ['test/**/*.test.ts'],
          // It compares the two executors itself, and counts when documents are compiled.
          exclude: ['test/compiled-execution.test.ts'],
          env: { TEST_EXECUTION: 'compiled' },
        },
      },
    ],
  },
})
