// `npm start`: builds dist/ when it is missing or older than src/, then serves it. With a
// current dist/ (an image, `npm run build` done elsewhere) only production dependencies are
// needed; building needs TypeScript, a dev dependency.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'

const root = new URL('../', import.meta.url)
const built = new URL('dist/.tsbuildinfo', root)

/** The newest modification time of the files below a folder. */
function newest(folder) {
  let latest = 0
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      latest = Math.max(latest, statSync(`${entry.parentPath}/${entry.name}`).mtimeMs)
    }
  }
  return latest
}

if (!existsSync(built) || newest(new URL('src', root)) > statSync(built).mtimeMs) {
  let tsc
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  } catch {
    console.error(
      'dist/ is missing or older than src/, and TypeScript (a dev dependency) is not installed: run `npm ci` then `npm start`, or `npm run build` where it is',
    )
    process.exit(1)
  }
  const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  })
  if (build.status !== 0) process.exit(build.status ?? 1)
}
await import(new URL('dist/main.js', root).href)
