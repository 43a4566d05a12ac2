import type { Stack } from './stack.js'

/**
 * Sends operations to the stack's gateway, which compiles a document the second time it comes,
 * and to `plain`, a replica that runs everything through graphql-js: both answers, and the
 * upstream paths each made (sorted: their order is timing).
 */
export function bothExecutors(stack: Stack, plain: Pick<Stack, 'post'>) {
  const { demo } = stack
  const paths = () =>
    demo
      .calls()
      .map((c) => c.path)
      .sort()
  return async (query: string, variables?: Record<string, unknown>) => {
    await stack.post(query, variables)
    demo.reset()
    const compiled = await stack.post(query, variables)
    const compiledCalls = paths()
    demo.reset()
    const reference = await plain.post(query, variables)
    const referenceCalls = paths()
    return { compiled, reference, compiledCalls, referenceCalls }
  }
}
