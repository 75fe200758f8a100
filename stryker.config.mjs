// Mutation testing of the safety core: `npm run mutate` (all of it) or
// `npm run mutate -- --mutate src/model/masking.ts` (a part). Scores and how to read them: docs/mutation.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutate.config.ts' },
  coverageAnalysis: 'perTest',
  // In place: tests that run the CLI as another user cannot read Stryker's sandbox copy in /tmp.
  inPlace: true,
  // Stryker's `// @ts-nocheck` line would make the generated registry differ from its freshness test.
  disableTypeChecks: false,
  concurrency: 2,
  timeoutMS: 20_000,
  mutate: [
    'src/model/masking.ts',
    'src/api/redact.ts',
    'src/engine/safety.ts',
    'src/engine/order.ts',
    'src/engine/diff.ts',
    'src/engine/plan-steps/*.ts',
  ],
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  thresholds: { high: 95, low: 90, break: null },
};
