import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { root } from '../support/process.js'

/**
 * Global setup of the e2e project: dist/ as `npm run build` makes it, so that the processes these
 * tests start run what the image runs. Incremental: seconds when dist/ is current.
 */
export default function buildDist() {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  })
}
