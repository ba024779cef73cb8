/** The hexagon's one dependency direction (ARCHITECTURE.md rule 1), checked in CI. */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports nothing outside itself (no node_modules, no other layer).',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/' },
    },
    {
      name: 'application-imports-domain-only',
      comment: 'src/application imports only src/domain and itself: no adapter library, no adapter.',
      severity: 'error',
      from: { path: '^src/application/' },
      to: { pathNot: '^src/(domain|application)/' },
    },
    {
      name: 'adapters-do-not-import-each-other',
      comment: 'An adapter folder imports domain and application, never another adapter folder.',
      severity: 'error',
      from: { path: '^src/adapters/([^/]+)/' },
      to: { path: '^src/adapters/', pathNot: ['^src/adapters/$1/'] },
    },
    {
      name: 'only-bootstrap-imports-bootstrap',
      severity: 'error',
      from: { pathNot: '^src/bootstrap/' },
      to: { path: '^src/bootstrap/' },
    },
    {
      name: 'core-entry-is-driver-free',
      comment: 'src/index.ts (the embeddable core) reaches no adapter but the in-memory store, and no bootstrap.',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^src/(adapters|bootstrap)/', pathNot: '^src/adapters/memory/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    builtInModules: { add: [] },
  },
};
