/**
 * The direction of imports (docs/architecture.md), checked by `npm run check`: requests flow
 * HTTP → yoga (operation admission) → resolvers (schema) → per-operation loaders → upstream
 * client → undici, and no module imports against that flow. Leaves (errors' codes, domain,
 * observability) import no layer of the gateway.
 */
const GRAPHQL =
  'node_modules/(graphql|graphql-yoga|@graphql-yoga|@pothos|@escape\\.tech|graphql-scalars)/'
const layer = (name) => `^src/${name}/`

/** A rule that `from` may not import `to`. */
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to })

module.exports = {
  forbidden: [
    forbid(
      'no-cycles',
      'A cycle has no direction: move the shared part down a layer.',
      {},
      {
        circular: true,
      },
    ),
    forbid(
      'upstream-knows-no-graphql',
      'The upstream layer speaks REST: no GraphQL, no yoga, no layer above it.',
      { path: layer('upstream') },
      {
        path: [
          GRAPHQL,
          layer('(http|operation|schema|loaders|demo-upstream)'),
          // Of errors/, only the catalogue: the helpers make GraphQL errors.
          '^src/errors/(?!codes\\.ts$)',
          '^src/(context|gateway|main)\\.ts$',
        ],
      },
    ),
    forbid(
      'upstream-stages-stand-alone',
      'Each stage of the read path stands alone and only src/upstream/client.ts composes them, so no stage calls back into an earlier one.',
      { path: '^src/upstream/(?!client\\.ts$)[^/]+\\.ts$' },
      { path: '^src/upstream/(client|cache|resilience|in-flight|admission|send|validate)\\.ts$' },
    ),
    forbid(
      'upstream-never-reaches-graphql',
      'Not through another module either: what the upstream layer imports knows no GraphQL.',
      {
        path: [
          layer('upstream'),
          layer('observability'),
          layer('domain'),
          '^src/errors/codes\\.ts$',
        ],
      },
      { path: GRAPHQL, reachable: true },
    ),
    forbid(
      'observability-is-a-leaf',
      'Logs, metrics and traces are used by every layer and use none of them.',
      { path: layer('observability') },
      { path: [GRAPHQL, '^src/(?!observability/|config\\.ts$)'] },
    ),
    forbid(
      'leaves-import-no-layer',
      'The error catalogue and the domain (company numbers, keyed hashes) stand alone.',
      { path: ['^src/errors/codes\\.ts$', layer('domain')] },
      { path: [GRAPHQL, '^src/(?!domain/|errors/codes\\.ts$)'] },
    ),
    forbid(
      'errors-import-no-layer',
      'Error helpers make coded errors; they do not reach into the layers that throw them.',
      { path: layer('errors') },
      { path: '^src/(?!errors/)' },
    ),
    forbid(
      'loaders-below-schema',
      'Loaders read through the upstream client for resolvers; they know nothing of the layers above.',
      { path: layer('loaders') },
      {
        path: [
          GRAPHQL,
          layer('(http|operation|schema)'),
          '^src/errors/(?!codes\\.ts$)',
          '^src/(context|gateway|main)\\.ts$',
        ],
      },
    ),
    forbid(
      'schema-below-operation',
      'Resolvers do not reach the request edge or the admission of operations.',
      { path: layer('schema') },
      { path: [layer('(http|operation)'), '^src/(gateway|main)\\.ts$'] },
    ),
    forbid(
      'operation-below-http',
      'Operation admission runs inside the request edge, not around it.',
      { path: layer('operation') },
      { path: [layer('http'), '^src/(gateway|main)\\.ts$'] },
    ),
    forbid(
      'http-below-gateway',
      'The request edge is wired by src/gateway.ts; it does not import it.',
      { path: layer('http') },
      { path: '^src/(gateway|main)\\.ts$' },
    ),
    forbid(
      'context-below-yoga',
      'The per-operation context is made for resolvers; it imports no plugin of the edge or of yoga.',
      { path: '^src/(context|config)\\.ts$' },
      { path: [layer('(http|operation|schema)'), '^src/(gateway|main)\\.ts$'] },
    ),
    forbid(
      'demo-outside-production',
      'The demo upstream is loaded by src/main.ts only when UPSTREAM_URL is unset (a dynamic import).',
      { path: '^src/', pathNot: ['^src/demo-upstream/', '^src/main\\.ts$'] },
      { path: layer('demo-upstream') },
    ),
    forbid(
      'demo-loaded-only-on-demand',
      'src/main.ts loads the demo upstream with a dynamic import, only when UPSTREAM_URL is unset.',
      { path: '^src/main\\.ts$' },
      { path: layer('demo-upstream'), dependencyTypesNot: ['dynamic-import', 'type-only'] },
    ),
    forbid(
      'demo-is-a-separate-service',
      'The demo upstream shares only the domain and the logger with the gateway.',
      { path: layer('demo-upstream') },
      { path: '^src/(?!demo-upstream/|domain/|observability/logger\\.ts$)' },
    ),
    forbid(
      'production-code-imports-no-dev-dependency',
      'What src/ imports must be installed in the production image.',
      { path: '^src/' },
      { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    ),
    forbid(
      'src-imports-no-tests',
      'Tests, benchmarks and scripts sit on top of src/, never under it.',
      { path: '^src/' },
      { path: '^(test|bench|scripts)/' },
    ),
    forbid(
      'no-unresolvable',
      'Every import resolves to a file or an installed package.',
      {},
      { couldNotResolve: true },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
}
