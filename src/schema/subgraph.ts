import { MapperKind, mapSchema, printSchemaWithDirectives } from '@graphql-tools/utils'
import {
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLResolveInfo,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  GraphQLUnionType,
  lexicographicSortSchema,
  valueFromASTUntyped,
} from 'graphql'
import type { Context } from '../context.js'
import { COUNTRIES } from '../domain/company-number.js'
import { badUserInput } from '../errors/graphql-errors.js'
import { companyByNumber, companyFromInput } from './company.js'
import { schema } from './index.js'
import { listById } from './list.js'
import { upstreamCost } from './upstream-cost.js'

/**
 * The served schema as an Apollo Federation v2 subgraph (SUBGRAPH=true): plus `@key` on entities,
 * the `@link`s, `_service` and `_entities`; derived, so the served schema stays byte for byte
 * what it is. Not @pothos/plugin-federation: see docs/decisions/0005.
 */

const FEDERATION = 'https://specs.apollo.dev/federation/v2.6'
/** The nullability spec that names @semanticNonNull, so composition may keep it. */
const NULLABILITY = 'https://specs.apollo.dev/nullability/v0.4'

type Representation = Record<string, unknown>

interface Entity {
  key: string
  resolve(reference: Representation, ctx: Context, info: GraphQLResolveInfo): Promise<object>
}

/** Each entity's key, and its reference resolved the way its root field is (company(), list()). */
const ENTITIES = new Map<string, Entity>(
  Object.entries({
    Company: {
      key: 'country number',
      resolve: ({ country, number }, ctx, info) => {
        if (!COUNTRIES.includes(country as never) || typeof number !== 'string') {
          throw badUserInput('A Company reference needs a country (BE, NL or FR) and a number.')
        }
        return companyByNumber(companyFromInput(country as never, number), ctx, info)
      },
    },
    List: {
      key: 'listId',
      resolve: ({ listId }, ctx, info) => {
        const id = listId as number
        if (!Number.isInteger(id) || id < 0 || id > 2 ** 31 - 1) {
          throw badUserInput('A List reference needs a listId: an Int, not negative.')
        }
        return listById(id, ctx, info)
      },
    },
  } satisfies Record<string, Entity>),
)

/** One representation: its entity's value with `__typename`, or its own error. */
async function resolveReference(reference: unknown, ctx: Context, info: GraphQLResolveInfo) {
  const typename = (reference as Representation | null)?.__typename
  // A Map, not an object: a __typename such as "constructor" names nothing.
  const entity = typeof typename === 'string' ? ENTITIES.get(typename) : undefined
  if (!entity || typeof reference !== 'object' || Array.isArray(reference)) {
    throw badUserInput(
      `A representation is an object with the __typename of an entity (${[...ENTITIES.keys()].join(', ')}) and its key fields.`,
    )
  }
  // A fresh object: the value may be the read cache's answer, frozen and shared.
  return { ...(await entity.resolve(reference as Representation, ctx, info)), __typename: typename }
}

const AnyType = new GraphQLScalarType({
  name: '_Any',
  description: 'An entity representation: `__typename` and the fields of its key.',
  parseValue: (value) => value,
  parseLiteral: (node, variables) => valueFromASTUntyped(node, variables),
})

const ServiceType = new GraphQLObjectType({
  name: '_Service',
  description: 'This subgraph, as a router composes it.',
  fields: { sdl: { type: GraphQLString, description: 'The subgraph schema (SDL).' } },
})

/** Directives of the subgraph only: each entity's key, and @shareable on PageInfo, which every
 *  Relay subgraph defines alike (composition refuses it unless all say so). */
const TYPE_DIRECTIVES: Record<string, object> = {
  ...Object.fromEntries([...ENTITIES].map(([name, { key }]) => [name, { key: { fields: key } }])),
  PageInfo: { shareable: {} },
}

const withTypeDirectives = (base: GraphQLSchema) =>
  mapSchema(base, {
    [MapperKind.OBJECT_TYPE]: (type) => {
      const added = TYPE_DIRECTIVES[type.name]
      if (!added) return type
      const config = type.toConfig()
      const directives = { ...(config.extensions.directives as object), ...added }
      return new GraphQLObjectType({ ...config, extensions: { ...config.extensions, directives } })
    },
  })

function withFederation(base: GraphQLSchema): GraphQLSchema {
  const config = base.toConfig()
  const query = base.getQueryType() as GraphQLObjectType
  const EntityType = new GraphQLUnionType({
    name: '_Entity',
    description: 'Every type a router may resolve by its key.',
    types: [...ENTITIES.keys()].map((name) => base.getType(name) as GraphQLObjectType),
    resolveType: (value: { __typename: string }) => value.__typename,
  })
  const root = new GraphQLObjectType({
    ...query.toConfig(),
    fields: {
      ...query.toConfig().fields,
      _service: {
        type: new GraphQLNonNull(ServiceType),
        description: 'The subgraph schema, for a router or registry to compose.',
        resolve: () => ({ sdl: subgraph().sdl }),
      },
      _entities: {
        type: new GraphQLNonNull(new GraphQLList(EntityType)),
        description:
          'The entities the router refers to, in its order; each answers on its own: a malformed reference is null with BAD_USER_INPUT (no upstream call), an unknown one null with NOT_FOUND.',
        args: {
          representations: {
            type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(AnyType))),
            description: 'References to entities: each its `__typename` and its key fields.',
          },
        },
        // A representation costs its own read (statements, list details) and what is selected.
        extensions: upstreamCost({
          fanOut: (args) => (args.representations as unknown[]).length,
          brings: 'unverified',
        }),
        resolve: (_root, args: { representations: unknown[] }, ctx: Context, info) =>
          args.representations.map((reference) => resolveReference(reference, ctx, info)),
      },
    },
  })
  return lexicographicSortSchema(
    new GraphQLSchema({
      ...config,
      query: root,
      types: [...config.types.filter((type) => type !== query), root],
      extensions: {
        ...config.extensions,
        directives: {
          link: [
            { url: FEDERATION, import: ['@key', '@shareable', '@composeDirective'] },
            { url: NULLABILITY, import: ['@semanticNonNull'] },
          ],
          composeDirective: [{ name: '@semanticNonNull' }],
        },
      },
    }),
  )
}

let built: { schema: GraphQLSchema; sdl: string } | undefined

/** The subgraph schema and its SDL, built on first use: the default mode does not pay for it. */
export function subgraph(): { schema: GraphQLSchema; sdl: string } {
  const federated = built?.schema ?? withFederation(withTypeDirectives(schema))
  built ??= { schema: federated, sdl: `${printSchemaWithDirectives(federated)}\n` }
  return built
}
