import type { GraphQLResolveInfo } from 'graphql'
import type { Context } from '../context.js'
import { type Relationship, relationships } from '../upstream/resources/relationships.js'
import { builder } from './builder.js'
import { type CompanyRef, CompanyType } from './company.js'
import { read } from './reads.js'
import { readBackedList } from './semantic-non-null.js'
import { RELATIONSHIP_FAN_OUT, upstreamCost } from './upstream-cost.js'

/** Shareholders and participations (upstream parents and children), from one upstream call. */

const RelationshipType = builder.objectRef<Relationship>('Relationship').implement({
  description: 'An ownership link between a company and a related party.',
  fields: (t) => ({
    company: t.expose('identifier', {
      type: CompanyType,
      nullable: true,
      extensions: upstreamCost({ brings: 'carried' }),
      description:
        'The related company; null where the upstream gives no identifier (a person, a foreign party).',
    }),
    name: t.string({
      nullable: true,
      description:
        'Name of the related party as the upstream gives it (also for persons); null when absent.',
      resolve: (r) => r.name ?? null,
    }),
    function: t.string({
      nullable: true,
      description: 'Role of the related party, e.g. SHAREHOLDER; null when absent.',
      resolve: (r) => r.function ?? null,
    }),
    percentage: t.float({
      nullable: true,
      description: 'Ownership share as a fraction (0.25 = 25 %); null when absent.',
      resolve: (r) => r.percentage ?? null,
    }),
  }),
})

/** One side of a company's relationships; each related company comes with its name and place. */
async function relatedParties(
  company: CompanyRef,
  side: 'parents' | 'children',
  ctx: Context,
  info: GraphQLResolveInfo,
) {
  return (await read(ctx, info, relationships, { company })).data[side]
}

/** Both sides come from one relationships read; each is assumed 10 long per company. */
const relationshipsCost = upstreamCost({
  reads: 1,
  sharedRead: 'relationships',
  fanOut: () => RELATIONSHIP_FAN_OUT,
  brings: 'carried',
})

builder.objectFields(CompanyType, (t) => ({
  shareholders: t.field({
    ...readBackedList,
    type: [RelationshipType],
    description: 'Companies and parties owning a share of this company (upstream: parents).',
    extensions: relationshipsCost,
    resolve: (company, _args, ctx, info) => relatedParties(company, 'parents', ctx, info),
  }),
  participations: t.field({
    ...readBackedList,
    type: [RelationshipType],
    description: 'Companies this company owns a share of (upstream: children).',
    extensions: relationshipsCost,
    resolve: (company, _args, ctx, info) => relatedParties(company, 'children', ctx, info),
  }),
}))
