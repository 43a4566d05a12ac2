import { builder } from '../builder.js'
import { type Relationship, relationships } from '../upstream/relationships.js'
import { CompanyType } from './company.js'

/** Shareholders and participations (upstream parents and children), from one upstream call. */

const RelationshipType = builder.objectRef<Relationship>('Relationship').implement({
  description: 'An ownership link between a company and a related party.',
  fields: (t) => ({
    company: t.field({
      type: CompanyType,
      nullable: true,
      description:
        'The related company; null where the upstream gives no identifier (a person, a foreign party).',
      resolve: (r, _args, ctx) =>
        r.identifier ? ctx.loaders.companies.remember(r.identifier) : null,
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

builder.objectFields(CompanyType, (t) => ({
  shareholders: t.field({
    type: [RelationshipType],
    description: 'Companies and parties owning a share of this company (upstream: parents).',
    resolve: async (company, _args, ctx) =>
      (await ctx.loaders.companies.read(relationships, { company })).data.parents,
  }),
  participations: t.field({
    type: [RelationshipType],
    description: 'Companies this company owns a share of (upstream: children).',
    resolve: async (company, _args, ctx) =>
      (await ctx.loaders.companies.read(relationships, { company })).data.children,
  }),
}))
