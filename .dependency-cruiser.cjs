/** The dependency rule of DESIGN.md §3, checked by `npm run lint`. */
module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      comment: 'core/ imports only core/, lib/ and zod (pure validation): no drivers, frameworks, node: I/O or adapters.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: '\\.(test|contract)\\.ts$' },
      to: { pathNot: ['^src/core/', '^src/lib/', 'node_modules/zod/'] },
    },
    {
      name: 'lib-is-leaf',
      comment: 'lib/ holds domain-free helpers and depends on nothing else in src/.',
      severity: 'error',
      from: { path: '^src/lib/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'oauth-core-is-pure',
      comment: 'src/oauth/ is the authorization server core: no transports, no storage adapters.',
      severity: 'error',
      from: { path: '^src/oauth/', pathNot: '\\.(test|contract)\\.ts$' },
      to: { path: '^src/(transports|adapters|jobs)/' },
    },
    {
      name: 'adapters-not-transports',
      comment: 'Adapters implement ports; they never reach up into transports or jobs.',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/(transports|jobs)/' },
    },
    {
      name: 'transports-use-core-not-drivers',
      comment: 'Transports call use-cases; drivers (SQL, IMAP, provider SDKs) live only in adapters.',
      severity: 'error',
      from: { path: '^src/(transports|jobs)/' },
      to: { path: 'node_modules/(kysely|better-sqlite3|pg|imapflow|nodemailer|@googleapis|@microsoft)/' },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.(test|contract)\\.ts$' },
      to: { path: ['^test/', '\\.(test|contract)\\.ts$'] },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
