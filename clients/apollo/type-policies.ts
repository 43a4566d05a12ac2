import type { FieldPolicy, Reference, TypePolicies } from '@apollo/client'
import { relayStylePagination } from '@apollo/client/utilities'

type Connection = { edges?: { node?: unknown }[]; nodes?: unknown[]; pageInfo?: unknown }

/**
 * relayStylePagination for one of the gateway's connections, with two changes: a failed page
 * (the connection null, fetched with `after` or `before`) leaves the rows already shown, and
 * `nodes` pages like `edges` (the gateway has both; relayStylePagination merges only edges).
 */
export function connection(keyArgs: string[] | false): FieldPolicy<Connection | null> {
  const relay = relayStylePagination(keyArgs) as unknown as Required<
    Pick<FieldPolicy<Connection | null>, 'read' | 'merge' | 'keyArgs'>
  > & { merge: NonNullable<Exclude<FieldPolicy<Connection | null>['merge'], boolean>> }
  return {
    keyArgs: relay.keyArgs,
    read(existing, options) {
      const read = relay.read(existing, options) as Connection | null | undefined
      if (!read) return read
      return {
        ...read,
        nodes: (read.edges ?? []).map((edge) => options.readField('node', edge as Reference)),
      }
    },
    merge(existing, incoming, options) {
      const page = options.args?.after != null || options.args?.before != null
      if (incoming == null) return page ? (existing ?? null) : null
      const edges = incoming.edges ?? incoming.nodes?.map((node) => ({ node }))
      return relay.merge(existing ?? undefined, { ...incoming, edges }, options)
    },
  }
}

/**
 * The type policies of every connection in the schema, keyed by its arguments other than the
 * paging ones (test/unit/client-kits.test.ts checks them against schema.graphql).
 */
export const typePolicies: TypePolicies = {
  Query: { fields: { lists: connection(['kind']) } },
  List: { fields: { companies: connection(['view']), contacts: connection(false) } },
  Company: {
    fields: {
      financials: connection(['orderBy']),
      lookalikes: connection(['minScore']),
      contacts: connection([
        'q',
        'onlyOfficialRoles',
        'seniorities',
        'departments',
        'officialRoles',
      ]),
    },
  },
}

/** The types of each interface, for fragments on `Node` (checked against schema.graphql too). */
export const possibleTypes = { Node: ['Company', 'Contact', 'List'] }
