import type { GraphQLResolveInfo } from 'graphql'
import type { Context } from '../context.js'
import type { Endpoint } from '../upstream/endpoint.js'
import { MAX_LIMIT, type Page } from '../upstream/resources/common.js'

/**
 * The reads resolvers make, through the operation's loaders (each made once per operation),
 * marked deferred when only a @defer'red part sends the field that asks.
 */

/** One GET for the field being resolved. */
export function read<P, T>(
  ctx: Context,
  info: GraphQLResolveInfo,
  endpoint: Endpoint<P, T>,
  params: P,
): Promise<T> {
  const node = info.fieldNodes[0]
  const deferred = !!ctx.plan && !!node && !ctx.plan.firstPart.has(node)
  return ctx.loaders.read(endpoint, params, deferred)
}

/** A collection read whole, for the gateway to order and page: the answer that opens it
 *  (its `identifier`, when it has one) and every item. */
export interface Whole<I, A> {
  first: A
  items: readonly I[]
}

/**
 * A paged collection read whole: 500 at once (the read that names the company too, for a
 * company's resources), then, for one with more, the next ones until the total, each drawn from
 * the operation's budget. An empty page ends it too, whatever total the upstream claims. Most
 * collections fit in one read: their items are then the answer's own array, the same object
 * each time it is asked for.
 */
export async function readWhole<
  P,
  A extends { data: readonly unknown[]; pagination: { total: number } },
>(
  ctx: Context,
  info: GraphQLResolveInfo,
  endpoint: Endpoint<P & Page, A>,
  params: P,
): Promise<Whole<A['data'][number], A>> {
  const page = (offset: number) =>
    read(ctx, info, endpoint, { ...params, limit: MAX_LIMIT, offset })
  const first = await page(0)
  if (first.data.length >= first.pagination.total) return { first, items: first.data }
  const items = [...first.data]
  for (let last = first; items.length < first.pagination.total && last.data.length > 0; ) {
    last = await page(items.length)
    items.push(...last.data)
  }
  return { first, items }
}
