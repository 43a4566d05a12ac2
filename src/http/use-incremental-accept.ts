import { BREAK, type DocumentNode, Kind, visit } from 'graphql'
import type { Plugin, YogaInitialContext } from 'graphql-yoga'
import { refusal } from '../errors/graphql-errors.js'
import { acceptedTypes, INCREMENTAL_MEDIA_TYPES } from './use-accept-check.js'

/**
 * An operation with @defer or @stream is answered part by part, which only multipart/mixed and
 * text/event-stream can carry. Asked with an Accept that admits neither (graphql-request's
 * `application/json`), it is refused before it runs: yoga would run it in full, reads and all,
 * then answer 406 with an empty body.
 */
export function useIncrementalAccept(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const { request } = args.contextValue as YogaInitialContext
      if (!deliversInParts(args.document)) return
      const accepted = acceptedTypes(request.headers.get('accept'))
      if (accepted.some((type) => INCREMENTAL_MEDIA_TYPES.includes(type))) return
      setResultAndStopExecution({
        errors: [
          refusal(
            'NOT_ACCEPTABLE',
            `@defer and @stream answer in parts: send Accept: ${INCREMENTAL_MEDIA_TYPES.join(' or ')}, or leave them out.`,
          ),
        ],
      })
    },
  }
}

/** Per document (yoga's parser cache hands the same object back for the same text). */
const inParts = new WeakMap<DocumentNode, boolean>()

/** Whether a document uses @defer or @stream, unless turned off by a literal `if: false`. */
function deliversInParts(document: DocumentNode): boolean {
  let found = inParts.get(document)
  if (found !== undefined) return found
  found = false
  visit(document, {
    Directive(node) {
      if (node.name.value !== 'defer' && node.name.value !== 'stream') return
      const condition = node.arguments?.find((a) => a.name.value === 'if')?.value
      if (condition?.kind === Kind.BOOLEAN && !condition.value) return
      found = true
      return BREAK
    },
  })
  inParts.set(document, found)
  return found
}
