import SchemaBuilder from '@pothos/core'
import DirectivesPlugin from '@pothos/plugin-directives'
import RelayPlugin from '@pothos/plugin-relay'
import type { Context } from '../context.js'
import { decodeGlobalId, encodeGlobalId } from './global-id.js'

/** The Pothos builder every file of src/schema/ adds its types to. Defines no types itself. */
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
    nodeTypeOptions: { description: 'Relay global object identification.' },
    idFieldOptions: {
      description:
        'Opaque global ID (URL-safe, typed, reveals no personal data), accepted by Query.node and Query.nodes.',
    },
    // src/schema/node.ts defines node and nodes: each ID answers on its own, errors included.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    pageInfoTypeOptions: { description: 'Where a page sits in its collection (Relay).' },
    hasNextPageFieldOptions: { description: 'Whether items follow the last one of this page.' },
    hasPreviousPageFieldOptions: {
      description: 'Whether items precede the first one of this page.',
    },
    startCursorFieldOptions: {
      description: 'Cursor of the first item of this page; null when empty.',
    },
    endCursorFieldOptions: {
      description: 'Cursor of the last item of this page; null when empty.',
    },
    pageInfoFieldOptions: { description: 'Paging state of this page.' },
    edgesFieldOptions: {
      nullable: { list: false, items: false },
      description: 'The items of this page with their cursors.',
    },
    nodesOnConnection: { description: 'The items of this page, without cursors.' },
    nodeFieldOptions: { nullable: false, description: 'The item.' },
    cursorFieldOptions: {
      description:
        'Opaque cursor of this item, the same whatever page it came in; pass it as after or before.',
    },
    firstArgOptions: {
      description:
        'Page forward: at most this many items (0 to 500; 20 when neither first nor last is given).',
    },
    afterArgOptions: { description: 'Page forward: start after the item with this cursor.' },
    lastArgOptions: {
      description: 'Page backward: at most this many items, the last ones (0 to 500).',
    },
    beforeArgOptions: { description: 'Page backward: end before the item with this cursor.' },
  },
})
