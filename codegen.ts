import type { CodegenConfig } from '@graphql-codegen/cli'

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

const codegen: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['test/**/*.ts', '!test/gql/**', '!test/gql-semantic/**', '!test/relay/**'],
  ignoreNoDocuments: false,
  generates: {
    'test/gql/': {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { mode: 'embedHashInDocument', hashAlgorithm: 'sha256' },
      },
      config,
    },
    'test/gql-semantic/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: { ...config, nullability: { errorHandlingClient: true } },
    },
  },
}

export default codegen
