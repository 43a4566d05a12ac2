import { decodeGlobalID } from '@pothos/plugin-relay'
import { badUserInput } from './errors.js'

/** Types that implement Node; any other type name in a global ID is refused. */
const NODE_TYPES = new Set(['List', 'Company', 'Contact'])

/** Pothos's decoding of `base64(type:key)`, with a malformed or foreign ID as BAD_USER_INPUT. */
export function decodeNodeId(globalID: string): { typename: string; id: string } {
  let decoded: { typename: string; id: string }
  try {
    decoded = decodeGlobalID(globalID)
  } catch {
    throw badUserInput(`Malformed global ID "${globalID.slice(0, 100)}".`, 'id')
  }
  if (!NODE_TYPES.has(decoded.typename)) {
    throw badUserInput(
      `The global ID "${globalID.slice(0, 100)}" names no List, Company or Contact.`,
      'id',
    )
  }
  return decoded
}
