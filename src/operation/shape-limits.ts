import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases'
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth'
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives'
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens'
import type { GraphQLError, ValidationContext, ValidationRule } from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { validationError } from '../errors/graphql-errors.js'

/** Fixed limits on the shape of an operation (docs/protection.md). */
const MAX_TOKENS = 2000
export const MAX_DIRECTIVES = 20

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

/**
 * graphql-armor throws its rejections out of validation, where they lose any code; reported as
 * validation errors instead, they carry GRAPHQL_VALIDATION_FAILED like every other one.
 */
const reportAsValidationError = {
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) =>
      context?.reportError(validationError(error.message.replace(/^Syntax Error: /, ''))),
  ],
}

/**
 * Read-only operations within the shape limits (depth, aliases, directives, tokens). Validation
 * errors carry `retryable: false` like every other error: yoga codes graphql-js's in place and
 * answers them without passing them through maskError, where the others get theirs.
 */
export function operationShapeLimits(limits: { maxDepth: number; maxAliases: number }): Plugin[] {
  return [
    {
      onValidate({ addValidationRule }) {
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
