import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases'
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth'
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives'
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens'
import {
  type DocumentNode,
  type GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  visit,
} from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { validationError } from '../errors/graphql-errors.js'

/** Fixed limits on the shape of an operation (docs/protection.md). */
const MAX_TOKENS = 2000
export const MAX_DIRECTIVES = 20
/** graphql-js's check that merged fields agree compares every pair; nothing needs 30. */
export const MAX_REPEATED_FIELD = 30

/** Per document: yoga's parser cache hands the same object back for the same text. */
const repeated = new WeakMap<DocumentNode, number>()

/** The most field nodes of one response key in one selection set, each fragment spread in once
 *  (as graphql-js's check collects them: fragments spreading each other do not multiply). */
function mostRepeated(document: DocumentNode): number {
  const known = repeated.get(document)
  if (known !== undefined) return known
  const fragments = new Map<string, SelectionSetNode>()
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition.selectionSet)
    }
  }
  let most = 0
  visit(document, {
    SelectionSet(top) {
      const counts = new Map<string, number>()
      const spread = new Set<string>()
      const walk = (set: SelectionSetNode) => {
        for (const selection of set.selections) {
          if (selection.kind === Kind.FIELD) {
            const key = (selection.alias ?? selection.name).value
            const n = (counts.get(key) ?? 0) + 1
            counts.set(key, n)
            most = Math.max(most, n)
          } else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet)
          else if (!spread.has(selection.name.value)) {
            spread.add(selection.name.value)
            const inner = fragments.get(selection.name.value)
            if (inner) walk(inner)
          }
        }
      }
      walk(top)
    },
  })
  repeated.set(document, most)
  return most
}

/** The schema has only queries: a mutation or subscription is invalid, not an internal error. */
const readOnly: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (!context.getSchema().getRootType(node.operation)) {
      context.reportError(
        validationError(`This gateway is read-only: it has no ${node.operation}s, only queries.`, {
          nodes: node,
        }),
      )
    }
  },
})

/** graphql-armor's rejections thrown out of validation lose any code: reported, they keep it. */
const reportAsValidationError = {
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) =>
      context?.reportError(validationError(error.message.replace(/^Syntax Error: /, ''))),
  ],
}

/**
 * Read-only operations within the shape limits. Validation errors get `retryable: false` here:
 * yoga answers them without passing them through maskError, where the others get theirs.
 */
export function operationShapeLimits(limits: { maxDepth: number; maxAliases: number }): Plugin[] {
  return [
    {
      onValidate({ addValidationRule, params, setResult }) {
        // Before graphql-js's rules run (they would spend the CPU this limit is there to save).
        if (mostRepeated(params.documentAST) > MAX_REPEATED_FIELD) {
          setResult([
            validationError(
              `A field is selected more than ${MAX_REPEATED_FIELD} times in one selection set (fragments spread in).`,
            ),
          ])
        }
        addValidationRule(readOnly)
        return ({ valid, result }) => {
          if (valid) return
          for (const error of result)
            (error.extensions as Record<string, unknown>).retryable ??= false
        }
      },
    },
    maxTokensPlugin({ n: MAX_TOKENS }),
    // Introspection counts like any other selection (armor leaves it out by default).
    maxDepthPlugin({
      n: limits.maxDepth,
      flattenFragments: true,
      ignoreIntrospection: false,
      ...reportAsValidationError,
    }),
    maxAliasesPlugin({ n: limits.maxAliases, allowList: [], ...reportAsValidationError }),
    maxDirectivesPlugin({ n: MAX_DIRECTIVES, ...reportAsValidationError }),
  ]
}
