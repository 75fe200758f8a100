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
  // The safety core (issue 25): what hides secrets, neutralises outside text or authenticates plans
  // (target 95 %), and what refuses or orders a dangerous plan and holds the lease (target 90 %).
  mutate: [
    'src/model/masking.ts',
    'src/api/redact.ts',
    'src/model/inert.ts',
    'src/model/secret-detection.ts',
    'src/engine/saved/plan-file.ts',
    'src/engine/saved/plan-compare.ts',
    'src/engine/plan/safety.ts',
    'src/engine/plan/order.ts',
    'src/engine/plan/diff.ts',
    'src/engine/plan/steps/*.ts',
    'src/engine/lease/lease.ts',
    'src/kinds/lease-record.ts',
  ],
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  thresholds: { high: 95, low: 90, break: null },
};
