import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { DEMO_TOKEN } from '../../src/demo-upstream/server.js'
import {
  chromiumAvailable,
  launchChromium,
  onPage,
  requireChromium,
  serveFiles,
} from '../support/browser.js'
import { bigList } from '../support/fixtures.js'
import { root } from '../support/process.js'
import { serve } from '../support/serve.js'
import { startStack } from '../support/stack.js'

/**
 * The example apps (examples/relay: React 19 + Relay 21; examples/apollo: React + Apollo Client 4),
 * each the copied kit plus the gateway's URL, built with Vite and driven in Debian's Chromium
 * against the gateway on the demo upstream, from another origin: lists → a list → load more →
 * load more while the members read fails (rows kept, error shown, retry works) → a company page
 * with a @defer part → error states from the demo's /_demo/faults. Each gateway runs only the
 * persisted documents of its app (PERSISTED_DOCUMENTS_ONLY). The apps and every step are the same
 * for both kits; only the kit differs.
 */

requireChromium()

// As `npm start` runs: the demo's token is the gateway's own, so a page sends none.
const stack = await startStack({ upstreamToken: DEMO_TOKEN })
const { demo } = stack
const manifests = {
  relay: new URL('examples/relay/persisted-documents.json', root).pathname,
  apollo: new URL('examples/apollo/src/gql/persisted-documents.json', root).pathname,
}

let browser: Browser
beforeAll(async () => {
  if (chromiumAvailable) browser = await launchChromium()
}, 120_000)
afterAll(async () => {
  await browser?.close()
})

/** PUT (a JSON object) or DELETE on the demo's /_demo/faults, as a developer would. */
async function faults(settings?: Record<string, string>) {
  const url = demo.adminUrl
  if (!url) throw new Error('the demo serves no /_demo/faults')
  const response = await fetch(url, {
    method: settings ? 'PUT' : 'DELETE',
    ...(settings && { body: JSON.stringify(settings) }),
  })
  expect(response.status).toBe(200)
}

const rows = (page: Page) => page.locator('ol > li')
/** Waits until the page shows `count` rows, then says how many it shows. */
async function rowsShown(page: Page, count: number) {
  await rows(page)
    .nth(count - 1)
    .waitFor()
  return rows(page).count()
}
const alert = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text })

const member = bigList.members
  .slice(0, 30)
  .find((m) => demo.data.relationshipsOf(m.company).parents.length > 0)?.company

describe.skipIf(!chromiumAvailable).each(['relay', 'apollo'] as const)(
  'examples/%s in Chromium',
  (kit) => {
    let app: string
    let gateway: string
    let preflights = 0

    beforeAll(async () => {
      const client = stack.replica({
        persistedDocuments: manifests[kit],
        persistedDocumentsOnly: true,
      })
      const served = await serve((req, res) => {
        if (req.method === 'OPTIONS') preflights += 1
        client.gateway.yoga(req, res)
      })
      gateway = `${served.url}/graphql`
      const built = inject('examples')
      if (!built) throw new Error('the examples were not built (test/e2e/build-examples.ts)')
      app = await serveFiles(built[kit])
    }, 60_000)

    it('lists, a list, load more that survives a failure, a @defer part, error states', async () => {
      expect(member?.name).toBeTruthy()
      await onPage(browser, kit, async (page, step) => {
        step('the lists')
        await page.goto(`${app}/?gateway=${encodeURIComponent(gateway)}#/`)
        await page.getByRole('link', { name: bigList.name }).click()

        step('a list: its first 10 companies')
        await page.getByRole('heading', { name: bigList.name }).waitFor()
        expect(await rowsShown(page, 10)).toBe(10)

        step('load more')
        await page.getByRole('button', { name: 'Load more' }).click()
        expect(await rowsShown(page, 20)).toBe(20)

        step('load more while the members read fails: the rows stay, the error is shown')
        await faults({ DEMO_FAULTS: 'members:503' })
        await page.getByRole('button', { name: 'Load more' }).click()
        await alert(page, 'UPSTREAM_ERROR').waitFor()
        expect(await rows(page).count()).toBe(20)
        expect(await alert(page, 'UPSTREAM_ERROR').textContent()).toMatch(/try again.*request \S+/)

        step('retry once the members read works again')
        await faults()
        await page.getByRole('button', { name: 'Retry' }).click()
        expect(await rowsShown(page, 30)).toBe(30)
        expect(await page.getByRole('alert').count()).toBe(0)

        step('a company page: its own part first, the deferred shareholders after')
        const held = demo.hold(/\/relationships$/)
        await page
          .getByRole('link', { name: member?.name ?? '' })
          .first()
          .click()
        await page.getByRole('heading', { name: member?.name ?? '' }).waitFor()
        await page.getByText('Loading shareholders…').waitFor()
        held.release()
        await page.locator('.owners > li').first().waitFor()
        expect(await page.getByText('Loading shareholders…').count()).toBe(0)

        step('error states: the deferred part fails, the rest of the page stays')
        await faults({ DEMO_FAULTS: 'relationships:503' })
        await page.reload()
        await page.getByRole('heading', { name: member?.name ?? '' }).waitFor()
        await alert(page, 'UPSTREAM_ERROR').waitFor()
        expect(await page.locator('table tr').count()).toBeGreaterThan(0)

        step('error states: a list that does not exist, the lists read failing')
        await faults({ DEMO_FAULTS: 'list:404,lists:500' })
        await page.goto(`${app}/?gateway=${encodeURIComponent(gateway)}#/list/${bigList.id}`)
        await alert(page, 'NOT_FOUND').waitFor()
        expect(await alert(page, 'NOT_FOUND').textContent()).toMatch(/will not change/)
        await page.getByRole('link', { name: 'All lists' }).click()
        await alert(page, 'UPSTREAM_ERROR').waitFor()
        await faults()
      })
      // Access-Control-Max-Age: one preflight served every request of the run.
      expect(preflights).toBe(1)
    }, 240_000)
  },
)
