import SchemaBuilder from '@pothos/core'
import DataloaderPlugin from '@pothos/plugin-dataloader'
import RelayPlugin from '@pothos/plugin-relay'
import type { Context } from './context.js'
import { decodeNodeId } from './global-id.js'

/** The Pothos builder every file of src/schema/ adds its types to. Defines no types itself. */
export const builder = new SchemaBuilder<{
  Context: Context
  Scalars: {
    /** Output accepts the upstream's ISO strings; input would be a Date. */
    DateTime: { Input: Date; Output: Date | string }
    /** YYYY-MM-DD. */
    Date: { Input: Date; Output: Date | string }
  }
  /** Every connection of the contract reports the collection's size. */
  Connection: { totalCount: number }
  // Non-null unless a field says otherwise, as in the contract.
  DefaultFieldNullability: false
  DefaultEdgesNullability: { list: false; items: false }
  DefaultNodeNullability: false
}>({
  defaultFieldNullability: false,
  plugins: [RelayPlugin, DataloaderPlugin],
  relay: {
    clientMutationId: 'omit',
    decodeGlobalID: decodeNodeId,
    cursorType: 'String',
    nodeTypeOptions: { description: 'Relay global object identification.' },
    idFieldOptions: {
      description: 'Opaque global ID (base64 of type name + natural key), accepted by Query.node.',
    },
    nodeQueryOptions: {
      args: { id: { description: 'Global ID of a List, Company or Contact.' } },
      description:
        'Any List, Company or Contact by its global ID; null (with a NOT_FOUND error) when the ID is well formed but names nothing. A Company ID resolves without an upstream call.',
    },
    nodesQueryOptions: {
      args: { ids: { description: 'Global IDs of Lists, Companies or Contacts, in any mix.' } },
      description: 'Several objects by global ID in one round trip, in the order asked.',
    },
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
