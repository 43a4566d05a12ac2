import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

/** The Apollo Client example as static files, for the browser test. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  build: { chunkSizeWarningLimit: 2000 },
})
