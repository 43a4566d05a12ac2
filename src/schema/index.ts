import { lexicographicSortSchema, specifiedDirectives } from 'graphql'
import { builder } from './builder.js'
import { semanticNonNullDirective } from './semantic-non-null.js'
import './node.js'
import './company.js'
import './financial.js'
import './lookalike.js'
import './relationship.js'
import './list.js'
import './contact.js'

/** The gateway's schema, types sorted so that the printed schema.graphql is stable. */
export const schema = lexicographicSortSchema(
  builder.toSchema({ directives: [...specifiedDirectives, semanticNonNullDirective] }),
)
