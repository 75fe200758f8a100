// The Action's entry, bundled with esbuild into action-dist/index.js (npm run build:action), which
// action.yml runs on node24 with no install step.

import * as core from '@actions/core';
import { runAction } from './action.js';

runAction().catch((err: unknown) => {
  core.setFailed(`postureops: internal error: ${err instanceof Error ? err.message : String(err)}`);
});
