// The vitest configuration of `stryker.engine.config.mjs`: the in-process tests only (test/engine,
// test/kinds). The e2e suites compute plans in `beforeAll` hooks, which Stryker counts as static
// coverage: every mutant of the engine then reruns the whole suite (about 45 s each). Tests that
// spawn dist/ kill no mutant anyway, so this subset gives a lower bound of the whole suite's score.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/engine/**/*.test.ts', 'test/kinds/**/*.test.ts'] },
});
