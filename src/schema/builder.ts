import SchemaBuilder from '@pothos/core'
import DirectivesPlugin from '@pothos/plugin-directives'
import RelayPlugin from '@pothos/plugin-relay'
import { DateResolver, DateTimeISOResolver } from 'graphql-scalars'
import type { Context } from '../context.js'
import { decodeGlobalId, encodeGlobalId } from './global-id.js'

const about = (description: string) => ({ description })

/** The Pothos builder every file of src/schema/ adds its types to, with the scalars and the
 *  connection field every type shares. */
export const builder = new SchemaBuilder<{
  Context: Context
  /** Output accepts the upstream's ISO strings. */
  Scalars: {
    DateTime: { Input: Date; Output: Date | string }
    Date: { Input: Date; Output: Date | string }
  }
  Connection: { totalCount: number }
  DefaultFieldNullability: false
  DefaultEdgesNullability: { list: false; items: false }
  DefaultNodeNullability: false
  Directives: {
    semanticNonNull: { locations: 'FIELD_DEFINITION'; args: { levels?: number[] } }
  }
}>({
  defaultFieldNullability: false,
  plugins: [DirectivesPlugin, RelayPlugin],
  // The shape @graphql-tools/utils reads, so printSchemaWithDirectives prints each use once.
  directives: { useGraphQLToolsUnorderedDirectives: true },
  relay: {
    clientMutationId: 'omit',
    encodeGlobalID: encodeGlobalId,
    decodeGlobalID: decodeGlobalId,
    cursorType: 'String',
    nodeTypeOptions: about('Relay global object identification.'),
    idFieldOptions: about(
      'Opaque global ID (URL-safe, typed, reveals no personal data), accepted by Query.node and Query.nodes.',
    ),
    // src/schema/node.ts defines node and nodes: each ID answers on its own, errors included.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    pageInfoTypeOptions: about('Where a page sits in its collection (Relay).'),
    hasNextPageFieldOptions: about('Whether items follow the last one of this page.'),
    hasPreviousPageFieldOptions: about('Whether items precede the first one of this page.'),
    startCursorFieldOptions: about('Cursor of the first item of this page; null when empty.'),
    endCursorFieldOptions: about('Cursor of the last item of this page; null when empty.'),
    pageInfoFieldOptions: about('Paging state of this page.'),
    edgesFieldOptions: {
      nullable: { list: false, items: false },
      description: 'The items of this page with their cursors.',
    },
    nodesOnConnection: about('The items of this page, without cursors.'),
    nodeFieldOptions: { nullable: false, description: 'The item.' },
    cursorFieldOptions: about(
      'Opaque cursor of this item, the same whatever page it came in; pass it as after or before.',
    ),
    firstArgOptions: about(
      'Page forward: at most this many items (0 to 500; 20 when neither first nor last is given).',
    ),
    afterArgOptions: about('Page forward: start after the item with this cursor.'),
    lastArgOptions: about('Page backward: at most this many items, the last ones (0 to 500).'),
    beforeArgOptions: about('Page backward: end before the item with this cursor.'),
  },
})

builder.addScalarType('DateTime', DateTimeISOResolver, {
  description: 'ISO 8601 date-time in UTC, e.g. 2024-03-01T10:15:00.000Z.',
})
builder.addScalarType('Date', DateResolver, { description: 'Calendar date, YYYY-MM-DD.' })

builder.globalConnectionField('totalCount', (t) =>
  t.int({
    description:
      'Number of items in the whole collection (upstream `pagination.total`), not just this page.',
    resolve: (connection) => connection.totalCount,
  }),
)
