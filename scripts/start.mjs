// `npm start`: builds dist/ when it is missing or older than src/, then serves it. With a
// current dist/ (an image, `npm run build` done elsewhere) only production dependencies are
// needed; building needs TypeScript, a dev dependency.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
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
  // Not spawnSync: a SIGTERM or SIGINT while it builds stops the build too and exits 0, leaving
  // no tsc behind (nothing was served yet).
  const build = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  })
  let stopped = false
  const stop = (signal) => {
    stopped = true
    build.kill(signal)
  }
  process.once('SIGTERM', stop).once('SIGINT', stop)
  const [code] = await once(build, 'exit')
  if (stopped) process.exit(0)
  process.off('SIGTERM', stop).off('SIGINT', stop)
  if (code !== 0) process.exit(code ?? 1)
}
await import(new URL('dist/main.js', root).href)
