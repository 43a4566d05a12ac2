import { DemoData } from '../src/demo-upstream/data.js'

/** The demo upstream's data, the same in this process as in the demo it starts. */
export const data = new DemoData()

/** A list of over 1,000 companies: the one the traversals page through. */
export const listId = data.lists.find((l) => l.amountOfCompanies > 1000)?.id ?? 1001
