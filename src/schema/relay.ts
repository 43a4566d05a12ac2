import { builder } from './builder.js'

/** Relay additions shared by every connection of the schema. */

builder.globalConnectionField('totalCount', (t) =>
  t.int({
    description:
      'Number of items in the whole collection (upstream `pagination.total`), not just this page.',
    resolve: (connection) => connection.totalCount,
  }),
)
