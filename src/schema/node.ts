import type { GraphQLResolveInfo } from 'graphql'
import type { Context } from '../context.js'
import { badUserInput } from '../errors/graphql-errors.js'
import { argumentChecks, parses } from './argument-checks.js'
import { builder } from './builder.js'
import { companyByNumber, companyFromId } from './company.js'
import { contactByKey, contactKeyProblem } from './contact-id.js'
import { decodeGlobalId } from './global-id.js'
import { listById } from './list.js'
import { upstreamCost } from './upstream-cost.js'

/** The query root, and Relay's node(id) and nodes(ids). */
builder.queryType({
  description:
    'Entry points: your lists, one list, one company, or any object by its global ID. Every field of the tree below pages the Relay way and reads the upstream REST service as little as possible.',
})

/** What a global ID names, in the gateway's own spelling only (a Relay client must get back the
 *  ID it asked for). */
function parseNodeId(globalId: string) {
  const { typename, id } = decodeGlobalId(globalId)
  if (typename === 'List') {
    if (!/^(0|[1-9]\d{0,14})$/.test(id)) throw badUserInput('Malformed List ID.', 'id')
    return { typename, listId: Number(id) } as const
  }
  if (typename === 'Company') return { typename, company: companyFromId(id) } as const
  const problem = contactKeyProblem(id)
  if (problem) throw badUserInput(problem, 'id')
  companyFromId(id.split(':').slice(0, 2).join(':'))
  return { typename, key: id } as const
}

/** The object a global ID names, a fresh copy with its `__typename`: what was loaded may be the
 *  read cache's answer, frozen and shared with other operations. */
async function loadNode(globalId: string, ctx: Context, info: GraphQLResolveInfo) {
  const parsed = parseNodeId(globalId)
  const node =
    parsed.typename === 'List'
      ? await listById(parsed.listId, ctx, info)
      : parsed.typename === 'Company'
        ? await companyByNumber(parsed.company, ctx, info)
        : await contactByKey(parsed.key, ctx, info)
  return { ...node, __typename: parsed.typename }
}

builder.queryFields((t) => ({
  node: t.field({
    type: builder.nodeInterfaceRef(),
    nullable: true,
    description:
      'Any List, Company or Contact by its global ID: a malformed ID refuses the operation with BAD_USER_INPUT (no upstream call); null with NOT_FOUND when it names nothing upstream.',
    args: {
      id: t.arg.id({ required: true, description: 'Global ID of a List, Company or Contact.' }),
    },
    // One read finds a list, a contact, or whether a company exists (shared with its fields' reads).
    extensions: {
      ...upstreamCost({ reads: 1, brings: 'carried' }),
      ...argumentChecks(parses('id', (args) => parseNodeId(String(args.id)))),
    },
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
      brings: 'carried',
    }),
    // Each item a promise of its own: a rejected one is null with its error at ["nodes", i].
    resolve: (_root, { ids }, ctx, info) => ids.map((id) => loadNode(String(id), ctx, info)),
  }),
}))
