// Mutation testing of the engine part of the safety core, one file at a time and quickly:
// `npx stryker run stryker.engine.config.mjs --mutate src/plan/core/safety.ts --concurrency 1`
// (after `npm run build`). The same as stryker.config.mjs but with the in-process tests only
// (vitest.mutate-engine.config.ts says why); scores in docs/mutation.md.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { ...base.vitest, configFile: 'vitest.mutate-engine.config.ts' },
  jsonReporter: { fileName: 'reports/mutation-engine/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation-engine/mutation.html' },
};
