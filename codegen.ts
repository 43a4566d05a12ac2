import type { CodegenConfig } from '@graphql-codegen/cli'

/**
 * Typed documents (client preset) for the operations the tests send, generated from the printed
 * schema.graphql. `npm run codegen` writes them; `npm run schema:check` fails when they are stale.
 *
 * `persistedDocuments` also writes test/gql/persisted-documents.json, the `{ "<id>": "<document>" }`
 * manifest that PERSISTED_DOCUMENTS reads (contract/runtime.md): ids are `sha256:<hex>` of the
 * normalised document (the GraphQL-over-HTTP persisted documents form), and each typed document
 * carries its id in `__meta__.hash`.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['test/**/*.ts', '!test/gql/**'],
  ignoreNoDocuments: false,
  generates: {
    'test/gql/': {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { mode: 'embedHashInDocument', hashAlgorithm: 'sha256' },
      },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        emitLegacyCommonJSImports: false,
        scalars: { DateTime: 'string', Date: 'string' },
      },
    },
  },
}

export default config
