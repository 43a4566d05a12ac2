import type { CodegenConfig } from '@graphql-codegen/cli'
import { addTypenameSelectionDocumentTransform } from '@graphql-codegen/client-preset'

/**
 * Typed documents (client preset) for the operations the tests send, generated from the printed
 * schema.graphql. `npm run codegen` writes them; `npm run schema:check` fails when they are stale.
 *
 * `persistedDocuments` also writes test/gql/persisted-documents.json, the `{ "<id>": "<document>" }`
 * manifest that PERSISTED_DOCUMENTS reads (contract/runtime.md): ids are `sha256:<hex>` of the
 * normalised document (the GraphQL-over-HTTP persisted documents form), and each typed document
 * carries its id in `__meta__.hash`.
 *
 * test/gql-semantic/ is the same documents typed for a client that throws on field errors
 * (`nullability.errorHandlingClient`, which reads @semanticNonNull through graphql-sock): what a
 * client team gets (docs/errors.md), checked by test/unit/semantic-non-null.test-d.ts.
 */
const config = {
  useTypeImports: true,
  enumsAsTypes: true,
  emitLegacyCommonJSImports: false,
  scalars: { DateTime: 'string', Date: 'string' },
  strictScalars: true,
}

/** The operations the tests send. */
const tests = ['test/**/*.ts', '!test/gql/**', '!test/gql-semantic/**', '!test/relay/**']

const codegen: CodegenConfig = {
  schema: 'schema.graphql',
  ignoreNoDocuments: false,
  generates: {
    'test/gql/': {
      documents: tests,
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { mode: 'embedHashInDocument', hashAlgorithm: 'sha256' },
      },
      config,
    },
    'test/gql-semantic/': {
      documents: tests,
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: { ...config, nullability: { errorHandlingClient: true } },
    },
    // The Apollo example, as docs/clients.md sets an app up (there with the gateway's schema URL).
    'examples/apollo/src/gql/': {
      documents: 'examples/apollo/src/**/*.tsx',
      preset: 'client',
      // Apollo's cache needs __typename, which it adds to what it sends; a persisted document
      // runs as the manifest has it, so the manifest must have them too.
      documentTransforms: [addTypenameSelectionDocumentTransform],
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { mode: 'embedHashInDocument', hashAlgorithm: 'sha256' },
      },
      config,
    },
  },
}

export default codegen
