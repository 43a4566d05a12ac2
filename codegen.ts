import type { CodegenConfig } from '@graphql-codegen/cli'

/**
 * Typed documents (client preset) for the operations the tests send, generated from the printed
 * schema.graphql. `npm run codegen` writes them; `npm run schema:check` fails when they are stale.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['test/**/*.ts', '!test/gql/**'],
  ignoreNoDocuments: false,
  generates: {
    'test/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
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
