// The Action's entry, bundled with esbuild into action-dist/index.js (npm run build:action), which
// action.yml runs on node24 with no install step.

import * as log from './log.js';
import { runAction } from './action.js';
import { InputError } from './settings.js';

runAction().catch((err: unknown) => {
  // A bad input is the workflow's to fix: its message names the input and what it accepts.
  if (err instanceof InputError) log.setFailed(`postureops: ${err.message}`);
  else log.setFailed(`postureops: internal error: ${err instanceof Error ? err.message : String(err)}`);
});
