/** The dependency rule of DESIGN.md §3, checked by `npm run lint`; test/lint/dependency-rule.test.ts plants a probe for each rule. */
const DRIVERS =
  'node_modules/(kysely|better-sqlite3|pg|pg-boss|imapflow|nodemailer|mailauth|postal-mime|@googleapis|@microsoft|google-auth-library)/';
const NOT_TESTS = '\\.(test|contract)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      comment:
        'core/ imports only core/, lib/ and zod (pure validation): no drivers, frameworks, node: I/O or adapters.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: NOT_TESTS },
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
      comment: 'src/oauth/ is the authorization server core: no transports, no storage adapters, no drivers.',
      severity: 'error',
      from: { path: '^src/oauth/', pathNot: NOT_TESTS },
      to: { path: ['^src/(transports|adapters|jobs|compose)/', DRIVERS] },
    },
    {
      name: 'adapters-only-from-composition',
      comment:
        'Adapters are chosen in one place: the composition root (app.ts, compose/) and the CLI that opens the database. Transports, jobs and cores reach them through ports.',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: ['^src/adapters/', '^src/compose/', '^src/app\\.ts$', '^src/transports/cli/', NOT_TESTS],
      },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'compose-only-from-app',
      comment: 'compose/ is the composition root split in two files; only app.ts builds the service with it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/compose/', '^src/app\\.ts$', NOT_TESTS] },
      to: { path: '^src/compose/' },
    },
    {
      name: 'adapters-not-transports',
      comment: 'Adapters implement ports; they never reach up into transports, jobs or the composition root.',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/(transports|jobs|compose)/' },
    },
    {
      name: 'transports-use-core-not-drivers',
      comment:
        'Transports call use-cases; drivers (SQL, IMAP, MIME, DKIM, provider SDKs) live only in adapters.',
      severity: 'error',
      from: { path: '^src/(transports|jobs)/' },
      to: { path: DRIVERS },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      from: { path: '^src/', pathNot: NOT_TESTS },
      to: { path: ['^test/', NOT_TESTS] },
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
