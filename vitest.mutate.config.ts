// The vitest configuration StrykerJS runs (npm run mutate). It is the suite's own, less the tests
// that cannot run on instrumented sources: the committed Action bundle is built from src/ and
// compared byte for byte, which an instrumented file never matches.
//
// MUTATE_TESTS (comma-separated globs) narrows the suite to the tests a run needs: .ci/mutate.mjs
// sets it to each group's in-process tests (stryker.config.mjs). Without it every test runs, and a
// mutant reached from an e2e `beforeAll` hook (which Stryker cannot attribute to a test) reruns all
// of them. A narrowed score is a lower bound of the whole suite's.
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

const config = mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: ['test/github/action-yml.test.ts', 'node_modules/**'],
    },
  }),
);
// Replaced, not merged: mergeConfig would append the globs to the suite's own.
if (process.env.MUTATE_TESTS) config.test!.include = process.env.MUTATE_TESTS.split(',');

export default config;
