import type { GraphQLResolveInfo } from 'graphql'
import type { Context } from '../context.js'
import type { Endpoint } from '../upstream/endpoint.js'
import { MAX_LIMIT, type Page } from '../upstream/resources/common.js'

/** One GET for the field being resolved, through the operation's loaders; deferred when only a
 *  @defer part sends the field. */
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

/** A collection read whole: the answer that opens it (its `identifier`) and every item. */
export interface Whole<I, A> {
  first: A
  items: readonly I[]
}

/**
 * A paged collection read whole, 500 at a time, until the total or an empty page (whatever total
 * the upstream claims). One read's items are the answer's own array, the same object each time.
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
