// Mutation testing of the safety core: `npm run mutate` (all of it, group by group, merged into one
// report) or `npm run mutate -- --mutate src/model/masking.ts` (a part). .ci/mutate.mjs runs
// Stryker with this file; scores and how to read them: docs/mutation.md.

// The in-process tests that exercise the engine: the e2e suites plan in `beforeAll` hooks, which
// Stryker counts as static coverage (every mutant they reach would rerun the whole suite, about
// 45 s each), and tests that spawn dist/ kill no mutant (Stryker mutates src/).
const ENGINE_TESTS = ['test/engine/**/*.test.ts', 'test/kinds/**/*.test.ts'];

/**
 * The safety core (issue 25) in groups, each with the tests it runs against: what hides secrets,
 * neutralises outside text or authenticates plans (target 95 %), and what refuses or orders a
 * dangerous plan and holds the lease (target 90 %). A group is one CI matrix job
 * (.github/workflows/mutation.yml); a file belongs to one group only.
 */
export const groups = [
  {
    name: 'secrets',
    // With the Action's guard, the last net before a text leaves for GitHub, and what the Action
    // registers with the runner (`::add-mask::`).
    mutate: ['src/model/masking.ts', 'src/api/redact.ts', 'src/model/inert.ts', 'src/model/secret-detection.ts', 'src/github/redact.ts', 'src/github/secrets.ts'],
    tests: [
      'test/model/**/*.test.ts',
      'test/github/redact.test.ts',
      'test/github/secrets.test.ts',
      'test/api/**/*.test.ts',
      'test/kinds/**/*.test.ts',
      'test/render/**/*.test.ts',
      'test/config/render-diagnostics.test.ts',
    ],
  },
  {
    name: 'plans',
    mutate: [
      'src/plan/saved/plan-file.ts',
      'src/plan/saved/plan-compare.ts',
      'src/plan/core/safety.ts',
      'src/plan/core/order.ts',
      'src/plan/core/diff.ts',
    ],
    tests: ENGINE_TESTS,
  },
  { name: 'plan-steps', mutate: ['src/plan/steps/*.ts'], tests: ENGINE_TESTS },
  { name: 'lease', mutate: ['src/ops/lease/lease.ts', 'src/ops/lease/lease-record.ts'], tests: ENGINE_TESTS },
  // What apply keeps out of the texts it stores, and what export writes instead of a secret.
  {
    name: 'written-secrets',
    mutate: ['src/ops/apply/apply-redact.ts', 'src/ops/export/export-secrets.ts'],
    tests: [...ENGINE_TESTS, 'test/model/**/*.test.ts'],
  },
];

/** The files held to 95 % (they hide secrets, neutralise outside text or authenticate plans); the rest of the core to 90 %. */
export const strict = [
  'src/model/masking.ts',
  'src/api/redact.ts',
  'src/model/inert.ts',
  'src/model/secret-detection.ts',
  'src/github/redact.ts',
  'src/github/secrets.ts',
  'src/plan/saved/plan-file.ts',
  'src/plan/saved/plan-compare.ts',
  'src/ops/apply/apply-redact.ts',
  'src/ops/export/export-secrets.ts',
];

// .ci/mutate.mjs writes each group's report in a folder of its own before merging them.
const reports = process.env.MUTATE_REPORT_DIR ?? 'reports/mutation';

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
  // Added to a mutant's expected test time: the in-process tests take milliseconds, and a mutant
  // that loops (lease.ts has about sixty) would otherwise hold a runner for 20 s.
  timeoutMS: 5_000,
  mutate: groups.flatMap((g) => g.mutate),
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: `${reports}/mutation.json` },
  htmlReporter: { fileName: `${reports}/mutation.html` },
  thresholds: { high: 95, low: 90, break: null },
};
