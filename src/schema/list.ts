import type { GraphQLResolveInfo } from 'graphql'
import type { Context } from '../context.js'
import { listCompanies } from '../upstream/resources/list-companies.js'
import { type List, listDetails, listOverview, theList } from '../upstream/resources/lists.js'
import { argumentChecks, notNegative } from './argument-checks.js'
import { builder } from './builder.js'
import { CompanyType } from './company.js'
import { connectionKey, pageOverOffsets, sliceOf } from './paging.js'
import { startReadsBelow } from './prefetch.js'
import { read } from './reads.js'
import { readBacked } from './semantic-non-null.js'
import { pagedCost, upstreamCost } from './upstream-cost.js'

/** The caller's lists of companies, and the companies in them. */

const ListTypeEnum = builder.enumType('ListType', {
  description: 'How a list gets its companies.',
  values: {
    STATIC: { description: 'Companies added by hand.' },
    SMART: { description: 'Companies that match the stored filters of the list.' },
  },
})

const ListKindEnum = builder.enumType('ListKind', {
  description: 'Which lists Query.lists returns; OVERVIEW returns both kinds.',
  values: {
    STATIC: { description: 'Only STATIC lists.' },
    SMART: { description: 'Only SMART lists.' },
    OVERVIEW: { description: 'Both kinds.' },
  },
})

const SmartListViewEnum = builder.enumType('SmartListView', {
  description: 'Which companies of a SMART list to return. Ignored for STATIC lists.',
  values: {
    ALL: { description: 'Every company of the list.' },
    SAVED: { description: 'Companies kept in the list.' },
    ARCHIVED: { description: 'Companies archived from the list.' },
    NEW: { description: 'New results: companies that recently matched the filters.' },
  },
})

/** One list by its id; one whose type is known has its companies and contacts read beside its
 *  details, not one round trip after them (a SMART list's companies read names its view). */
export async function listById(listId: number, ctx: Context, info: GraphQLResolveInfo) {
  const details = read(ctx, info, listDetails, { listId }).then((answer) => theList(answer, listId))
  const type = ctx.listTypes.typeOf(listId)
  if (type !== undefined) startReadsBelow({ id: listId, type }, 'List', ctx, info, details)
  const list = await details
  ctx.listTypes.learn([list])
  return list
}

export const ListNode = builder.node(builder.objectRef<List>('List'), {
  description: 'A list of companies owned or shared with the caller.',
  id: { resolve: (list) => list.id },
  fields: (t) => ({
    listId: t.exposeInt('id', {
      description: 'Numeric identifier of the list upstream (REST `id`).',
    }),
    name: t.exposeString('name', { description: 'Name of the list.' }),
    type: t.expose('type', {
      type: ListTypeEnum,
      description: 'STATIC (hand-picked) or SMART (filter-based).',
    }),
    columns: t.exposeStringList('columns', {
      description:
        'Display columns chosen for the list, e.g. activities, vatNumber, country, url, socials, description (the upstream does not list every allowed value).',
    }),
    shared: t.exposeBoolean('shared', {
      description: 'Whether the list is shared with other users.',
    }),
    notificationsEnabled: t.boolean({
      description:
        'Whether notifications are on (REST `notifications.enabled`); only STATIC lists can have them.',
      resolve: (list) => list.notifications.enabled,
    }),
    companyCount: t.exposeInt('amountOfCompanies', {
      description: 'Number of companies in the list (REST `amountOfCompanies`).',
    }),
    newResults: t.exposeInt('newResults', {
      nullable: true,
      description:
        'SMART lists: number of new results for the applied filters. STATIC lists: null.',
    }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      description: 'When the list was created (UTC).',
    }),
    updatedAt: t.expose('updatedAt', {
      type: 'DateTime',
      description: 'When the list last changed (UTC).',
    }),
    createdBy: t.exposeString('createdBy', {
      description: 'E-mail address of the user who created the list.',
    }),
    companies: t.connection(
      {
        ...readBacked,
        type: CompanyType,
        description:
          'Companies in the list, in upstream order. Each edge says since when the company is in the list. Relay paging, at most 500 per page, 20 by default.',
        args: {
          view: t.arg({
            type: SmartListViewEnum,
            description:
              'SMART lists only: which companies (default ALL). Ignored for STATIC lists.',
          }),
        },
        extensions: pagedCost({ brings: 'carried' }),
        resolve: (list, { view, ...args }, ctx, info) => {
          // Always explicit for SMART lists: the upstream's default view is not documented.
          const smartView = list.type === 'SMART' ? (view ?? 'ALL') : undefined
          return pageOverOffsets(
            connectionKey('listCompanies', list.id, smartView),
            args,
            (offset, limit) =>
              read(ctx, info, listCompanies, {
                listId: list.id,
                view: smartView,
                limit,
                offset,
              }).then(sliceOf),
            (member) => ({ node: member.identifier, matchedSince: member.matchedSince }),
          )
        },
      },
      { name: 'ListCompanyConnection', description: 'A page of the companies of a list.' },
      {
        name: 'ListCompanyEdge',
        description: 'A company of a list, its cursor and since when it is in the list.',
        fields: (edge) => ({
          matchedSince: edge.field({
            type: 'DateTime',
            description: 'When the company was added (STATIC) or matched the filters (SMART).',
            resolve: (e) => e.matchedSince,
          }),
        }),
      },
    ),
  }),
})

builder.queryFields((t) => ({
  lists: t.connection(
    {
      ...readBacked,
      type: ListNode,
      description:
        'Lists of the caller. Relay cursor paging (first/after forward, last/before backward).',
      args: {
        kind: t.arg({
          type: ListKindEnum,
          defaultValue: 'OVERVIEW',
          required: false,
          description: 'STATIC, SMART or OVERVIEW (both kinds, the default).',
        }),
      },
      extensions: pagedCost(),
      // An explicit null (Relay's way for a variable it does not set) is the default: the same
      // collection, so the same cursors.
      resolve: (_root, { kind: given, ...args }, ctx, info) => {
        const kind = given ?? 'OVERVIEW'
        return pageOverOffsets(connectionKey('lists', kind), args, (offset, limit) =>
          read(ctx, info, listOverview, { kind, limit, offset }).then((page) => {
            ctx.listTypes.learn(page.data)
            return sliceOf(page)
          }),
        )
      },
    },
    { name: 'ListConnection', description: 'A page of lists.' },
    { name: 'ListEdge', description: 'A list and its cursor.' },
  ),
  list: t.field({
    type: ListNode,
    nullable: true,
    description:
      'One list by its numeric identifier; null (with a NOT_FOUND error) when it does not exist.',
    extensions: { ...upstreamCost({ reads: 1 }), ...argumentChecks(notNegative('listId')) },
    args: {
      listId: t.arg.int({
        required: true,
        description: 'Numeric identifier of the list (List.listId).',
      }),
    },
    resolve: (_root, { listId }, ctx, info) => listById(listId, ctx, info),
  }),
}))
