// The vitest configuration StrykerJS runs (npm run mutate). It is the suite's own, less the tests
// that cannot run on instrumented sources: the committed Action bundle is built from src/ and
// compared byte for byte, which an instrumented file never matches. Tests that spawn dist/ stay:
// they kill no mutant (Stryker mutates src/ in place, not dist/), and per-test coverage keeps them
// out of every mutant's run once the first run has seen that.
//
// MUTATE_TESTS (comma-separated globs) narrows the suite for a quick look at one file: a mutant that
// touches code run at import time ("static") reruns every test, so with the whole suite one file can
// take an hour on two cores. A narrowed score is a lower bound of the whole suite's.
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
