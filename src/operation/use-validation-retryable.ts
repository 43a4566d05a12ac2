import type { Plugin } from 'graphql-yoga'

/**
 * Validation errors carry `retryable: false` like every other error: yoga codes graphql-js's
 * validation errors in place (GRAPHQL_VALIDATION_FAILED) and answers them without passing them
 * through maskError, where the other errors get theirs. The same document is invalid every time.
 */
export function useValidationRetryable(): Plugin {
  return {
    onValidate:
      () =>
      ({ valid, result }) => {
        if (valid) return
        for (const error of result) {
          const extensions = error.extensions as Record<string, unknown>
          extensions.retryable ??= false
        }
      },
  }
}
