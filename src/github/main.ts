// The Action's entry, bundled with esbuild into action-dist/index.js (npm run build:action), which
// action.yml runs on node24 with no install step.

import * as log from './log.js';
import { runAction } from './action.js';

runAction().catch((err: unknown) => {
  log.setFailed(`postureops: internal error: ${err instanceof Error ? err.message : String(err)}`);
});
