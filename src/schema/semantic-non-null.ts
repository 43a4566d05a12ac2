import { DirectiveLocation, GraphQLDirective, GraphQLInt, GraphQLList } from 'graphql'

/** Fields backed by a read of their own are nullable, so a failed read nulls that field alone,
 *  and @semanticNonNull: null only with an error (contract/api-surface.graphql). */
export const semanticNonNullDirective = new GraphQLDirective({
  name: 'semanticNonNull',
  description:
    'The field is null only when an error at its path (or above it) says why; a client that throws\non field errors may treat it as non-null.',
  locations: [DirectiveLocation.FIELD_DEFINITION],
  args: { levels: { type: new GraphQLList(GraphQLInt), defaultValue: [0] } },
})

/** Options of a field backed by a read of its own: nullable, @semanticNonNull. */
export const readBacked = { nullable: true, directives: { semanticNonNull: {} } } as const

/** The same for a list field: the list may be null, its items never are. */
export const readBackedList = {
  nullable: { list: true, items: false },
  directives: { semanticNonNull: {} },
} as const
