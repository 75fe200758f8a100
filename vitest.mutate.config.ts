// The vitest configuration StrykerJS runs (npm run mutate). It is the suite's own, less the tests
// that cannot run on instrumented sources: the committed Action bundle is built from src/ and
// compared byte for byte, which an instrumented file never matches. Tests that spawn dist/ stay:
// they kill no mutant (Stryker mutates src/ in place, not dist/), and per-test coverage keeps them
// out of every mutant's run once the first run has seen that.
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: ['test/github/action-yml.test.ts', 'node_modules/**'],
    },
  }),
);
