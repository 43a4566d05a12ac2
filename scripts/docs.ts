import { readFile, writeFile } from 'node:fs/promises'
import { GENERATED, withTable } from './docs-tables.js'

/** Writes the generated tables of docs/ (scripts/docs-tables.ts) into their pages. */
for (const { page, marker, render } of GENERATED) {
  const file = new URL(`../${page}`, import.meta.url)
  const text = await readFile(file, 'utf8')
  const written = withTable(text, marker, render())
  if (written === text) console.log(`${page} is up to date.`)
  else {
    await writeFile(file, written)
    console.log(`Wrote ${page}.`)
  }
}
