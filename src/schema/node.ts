import type { GraphQLResolveInfo } from 'graphql'
import type { Context } from '../context.js'
import { builder } from './builder.js'
import { companyFromId, existingCompany } from './company.js'
import { contactByKey } from './contact.js'
import { partOf } from './defer-part.js'
import { decodeGlobalId } from './global-id.js'
import { ListNode } from './list.js'
import { upstreamCost } from './upstream-cost.js'

/**
 * Relay's node(id) and nodes(ids). Each ID answers on its own: a malformed one is null with
 * BAD_USER_INPUT (no upstream call), one that names nothing is null with NOT_FOUND, and neither
 * fails the other IDs of nodes().
 */

/**
 * The object a global ID names, as a fresh object with its `__typename` for the Node interface
 * (the relay plugin's way for nodes loaded by hand): what was loaded may be the read cache's
 * answer, frozen and shared with other operations, so it is neither branded nor changed.
 */
async function loadNode(globalId: string, ctx: Context, info: GraphQLResolveInfo) {
  const { typename, id } = decodeGlobalId(globalId)
  const node =
    typename === 'List'
      ? await ListNode.getDataloader(ctx).load(id)
      : typename === 'Company'
        ? await existingCompany(companyFromId(id), ctx, info)
        : await contactByKey(id, ctx, partOf(info))
  return { ...node, __typename: typename }
}

builder.queryFields((t) => ({
  node: t.field({
    type: builder.nodeInterfaceRef(),
    nullable: true,
    description:
      'Any List, Company or Contact by its global ID: null with BAD_USER_INPUT when the ID is malformed (no upstream call), null with NOT_FOUND when it names nothing upstream.',
    args: {
      id: t.arg.id({ required: true, description: 'Global ID of a List, Company or Contact.' }),
    },
    // One read finds a list, a contact, or whether a company exists (shared with its fields' reads).
    extensions: upstreamCost({ reads: 1, companies: 'carried' }),
    resolve: (_root, { id }, ctx, info) => loadNode(String(id), ctx, info),
  }),
  nodes: t.field({
    type: [builder.nodeInterfaceRef()],
    nullable: { list: false, items: true },
    description:
      'Several objects by global ID in one round trip, in the order asked. Each ID answers on its own: a malformed or unknown one is null with its error at its index.',
    args: {
      ids: t.arg.idList({
        required: true,
        description: 'Global IDs of Lists, Companies or Contacts, in any mix.',
      }),
    },
    extensions: upstreamCost({
      reads: (args) => (args.ids as unknown[]).length,
      fanOut: (args) => (args.ids as unknown[]).length,
      companies: 'carried',
    }),
    // Each item a promise of its own: a rejected one is null with its error at ["nodes", i].
    resolve: (_root, { ids }, ctx, info) => ids.map((id) => loadNode(String(id), ctx, info)),
  }),
}))
