import type { GraphQLField } from 'graphql'
import { type PageArgs, pageReads, pageSize } from './paging.js'

/**
 * Each field that reads the upstream declares its cost where it is defined
 * (`extensions: upstreamCost({...})`); the operation's estimate (src/operation/cost-estimate.ts)
 * adds them up before it runs.
 */

type Args = Record<string, unknown>

/** What is known of the companies a field leads to. */
export type CompanyKnowledge =
  /** Their name and place came along (list members, relationships, a contact's company). */
  | 'carried'
  /** Only country and number (lookalikes): a name costs a read unless another read brings it. */
  | 'bare'
  /** Not even whether the upstream knows them (company(), node()): one read must tell. */
  | 'unverified'

export interface UpstreamCost {
  /** Upstream reads the field makes for each object it is asked on. */
  reads?: number | ((args: Args) => number)
  /** Fields of one object with the same key share one read (shareholders and participations). */
  sharedRead?: string
  /** How many times the selection below the field runs: the page size, the number of IDs. */
  fanOut?: (args: Args) => number
  /** Its read is the one that checks a company and names it when nothing else does (its
   *  statements, src/loaders/company-directory.ts): asked for in any part, it is that same read. */
  isCheckRead?: boolean
  /** The company's own name or place: a read when nothing else names the company. */
  isCompanyName?: boolean
  /** What is known of the companies reached through the field. */
  companies?: CompanyKnowledge
}

/** Shareholders or participations assumed per company when their selection reads the upstream. */
export const RELATIONSHIP_FAN_OUT = 10

/** Field extensions declaring a field's upstream cost (read by the estimate from the schema). */
export function upstreamCost(cost: UpstreamCost): { upstreamCost: UpstreamCost } {
  return { upstreamCost: cost }
}

/**
 * A connection over an upstream-paged collection: one read per page (two for `last` alone), its
 * items once per page slot. Arguments paging would refuse make no read.
 */
export function pagedCost(more: Omit<UpstreamCost, 'reads' | 'fanOut'> = {}) {
  return upstreamCost({
    ...more,
    reads: (args) => (validSize(args) === undefined ? 0 : pageReads(args as PageArgs)),
    fanOut: (args) => validSize(args) ?? 0,
  })
}

/** A connection the gateway pages over one unpaged upstream read (lookalikes). */
export function unpagedCost(more: Omit<UpstreamCost, 'reads' | 'fanOut'> = {}) {
  return upstreamCost({
    ...more,
    reads: (args) => (validSize(args) === undefined ? 0 : 1),
    fanOut: (args) => validSize(args) ?? 0,
  })
}

function validSize(args: Args): number | undefined {
  try {
    return pageSize(args as PageArgs)
  } catch {
    return undefined
  }
}

/** The upstream cost a field declares, if any: fields without one never read the upstream. */
export function costOfField(field: GraphQLField<unknown, unknown>): UpstreamCost | undefined {
  return field.extensions.upstreamCost as UpstreamCost | undefined
}

/** Whether a field may read the upstream itself (not just lead to objects that do). */
export function readsUpstream(field: GraphQLField<unknown, unknown>): boolean {
  const cost = costOfField(field)
  return cost?.reads !== undefined || cost?.isCompanyName === true
}
