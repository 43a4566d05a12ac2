import type { GraphQLField } from 'graphql'
import { type ArgumentCheck, argumentChecks } from './argument-checks.js'
import { type PageArgs, pageArguments, pageReads, pageSize } from './paging.js'

/** Each field that reads the upstream declares its cost; the operation's estimate
 *  (src/operation/analysis.ts) adds them up before it runs. */

type Args = Record<string, unknown>

/** What the read that brought objects into the answer carried of them. */
export type Knowledge =
  /** Name and place of companies (list members, relationships, a contact's company), the rank of
   *  contacts among namesakes (a company's contacts read whole). */
  | 'carried'
  /** Not those: a field that needs them costs a read (lookalikes, a list's contacts). */
  | 'bare'
  /** Not even whether the upstream knows them (company(), node()): its statements read tells. */
  | 'unverified'

interface UpstreamCost {
  /** Upstream reads the field makes for each object it is asked on. */
  reads?: number | ((args: Args) => number)
  /** Fields of one object with the same key share one read (a company's statements). */
  sharedRead?: string
  /** Its value comes along when the object's read carried it; otherwise it costs its reads. */
  unlessCarried?: true
  /** How many times the selection below the field runs: the page size, the number of IDs. */
  fanOut?: (args: Args) => number
  /** What is known of the objects the field leads to; unset: what is known of its parent. */
  brings?: Knowledge
}

/** A company's statements read: the one that names it and tells whether it exists. */
export const STATEMENTS = 'statements'

/** Shareholders or participations assumed per company when their selection reads the upstream. */
export const RELATIONSHIP_FAN_OUT = 10

export function upstreamCost(cost: UpstreamCost): { upstreamCost: UpstreamCost } {
  return { upstreamCost: cost }
}

/** A connection over an upstream-paged collection: one read per page (two for `last` alone). */
export function pagedCost(
  more: Omit<UpstreamCost, 'reads' | 'fanOut'> = {},
  ...checks: ArgumentCheck[]
) {
  return {
    ...upstreamCost({ ...more, reads: (args) => pageReads(args as PageArgs), fanOut: pageFanOut }),
    ...argumentChecks(pageArguments, ...checks),
  }
}

/** A connection the gateway pages over a collection it reads whole (`reads` per object). */
export function wholeCost(more: Omit<UpstreamCost, 'fanOut'> = {}, ...checks: ArgumentCheck[]) {
  return {
    ...upstreamCost({ reads: 1, ...more, fanOut: pageFanOut }),
    ...argumentChecks(pageArguments, ...checks),
  }
}

const pageFanOut = (args: Args) => pageSize(args as PageArgs)

/** The cost a field declares; fields without one never read the upstream. */
export function costOfField(field: GraphQLField<unknown, unknown>): UpstreamCost | undefined {
  return field.extensions.upstreamCost as UpstreamCost | undefined
}
