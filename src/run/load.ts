// Loading the configuration, once for both adapters: the files read and validated (src/config), and
// a configuration with errors as the run's problem (`invalid`), before anything is sent.

import { loadConfig } from '../config/load.js';
import type { LoadOptions, LoadResult } from '../config/types.js';
import type { DesiredState } from '../model/account.js';
import { hasErrors } from '../model/diagnostics.js';
import { RunError } from './errors.js';

export type { LoadProgress, LoadResult } from '../config/types.js';

/** The files of `dir`, read and validated with the environment's values. */
export function loadConfiguration(dir: string, options: LoadOptions): Promise<LoadResult> {
  return loadConfig(dir, options);
}

/** The desired state of a load without errors; otherwise a RunError (`invalid`) with the load's diagnostics. */
export function desiredOf(result: LoadResult): DesiredState {
  if (!result.state || hasErrors(result.diagnostics)) throw new RunError({ kind: 'invalid', diagnostics: result.diagnostics });
  return result.state;
}
