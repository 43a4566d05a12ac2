import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: {
    // graphql 16 ships ESM (.mjs) and CJS (.js) builds; Node loads the CJS one for the packages
    // that import it (Pothos, yoga), so the tests must too, or two graphql instances collide.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
})
