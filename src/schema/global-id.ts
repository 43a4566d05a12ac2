import { badUserInput } from '../errors/graphql-errors.js'

/** Global IDs: exactly `base64url("<type>:<key>")` of a Node type; else BAD_USER_INPUT. */
type NodeType = 'List' | 'Company' | 'Contact'
const NODE_TYPES: readonly string[] = ['List', 'Company', 'Contact'] satisfies NodeType[]

export function encodeGlobalId(typename: string, key: string | number | bigint): string {
  return Buffer.from(`${typename}:${key}`).toString('base64url')
}

export function decodeGlobalId(globalId: string): { typename: NodeType; id: string } {
  const text = Buffer.from(globalId, 'base64url').toString()
  const colon = text.indexOf(':')
  const typename = text.slice(0, colon)
  // Only the canonical encoding: no padding, no standard-base64 characters, nothing dropped.
  if (colon < 0 || Buffer.from(text).toString('base64url') !== globalId) {
    throw badUserInput(`Malformed global ID "${globalId.slice(0, 100)}".`, 'id')
  }
  if (!NODE_TYPES.includes(typename)) {
    throw badUserInput(
      `The global ID "${globalId.slice(0, 100)}" names no List, Company or Contact.`,
      'id',
    )
  }
  return { typename: typename as NodeType, id: text.slice(colon + 1) }
}
