import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
import relay from 'vite-plugin-relay'

/** The Relay example as static files (examples/relay/dist), for the browser test. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [relay],
  logLevel: 'warn',
  build: { chunkSizeWarningLimit: 2000 },
})
