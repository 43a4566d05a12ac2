import { type Relationship, relationships } from '../upstream/resources/relationships.js'
import { builder } from './builder.js'
import { CompanyType } from './company.js'
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

/** Both sides come from one relationships read; each is assumed 10 long per company. */
const relationshipsCost = upstreamCost({
  reads: 1,
  sharedRead: 'relationships',
  fanOut: () => RELATIONSHIP_FAN_OUT,
  brings: 'carried',
})

builder.objectFields(CompanyType, (t) => {
  const side = (side: 'parents' | 'children', description: string) =>
    t.field({
      ...readBackedList,
      type: [RelationshipType],
      description,
      extensions: relationshipsCost,
      resolve: async (company, _args, ctx, info) =>
        (await read(ctx, info, relationships, { company })).data[side],
    })
  return {
    shareholders: side(
      'parents',
      'Companies and parties owning a share of this company (upstream: parents).',
    ),
    participations: side(
      'children',
      'Companies this company owns a share of (upstream: children).',
    ),
  }
})
