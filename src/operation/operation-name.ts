import { type DocumentNode, getOperationAST, type OperationDefinitionNode } from 'graphql'

/** Longest operation name written to a log line or a span: a name has no length limit of its own. */
const MAX_SHOWN_NAME = 128

/** The operation a request runs, with its name as logs and spans show it (cut to a bound). */
export function runOperation(
  document: DocumentNode,
  operationName: string | null | undefined,
): { operation: OperationDefinitionNode; shownName: string | undefined } | undefined {
  const operation = getOperationAST(document, operationName)
  if (!operation) return undefined
  const name = operation.name?.value
  const shownName =
    name !== undefined && name.length > MAX_SHOWN_NAME ? `${name.slice(0, MAX_SHOWN_NAME)}…` : name
  return { operation, shownName }
}
