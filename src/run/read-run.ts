// A run that only reads (routes --live): the lists of the kinds asked for, after their pre-flight.

import type { LiveState } from '../model/live.js';
import { readGroups } from '../ops/budget/preflight.js';
import type { Kind } from '../kinds/types.js';
import type { AccountConfig } from '../model/account.js';
import type { JsonObject } from '../model/json.js';
import { type ReadHooks, readLive } from './read.js';
import { Run, type RunSetup } from './run.js';

export interface ReadRequest {
  accounts: AccountConfig[];
  /** The kinds read in every account. */
  kinds: readonly Kind[];
  settings?: JsonObject;
}

export async function readRun(setup: RunSetup, request: ReadRequest, hooks: ReadHooks = {}): Promise<LiveState> {
  const run = Run.open(setup);
  try {
    const kindsOf = (): readonly Kind[] => request.kinds;
    await run.preflight(readGroups(request.accounts, kindsOf), 'read');
    return await readLive(run, request.accounts, { ...(request.settings ? { settings: request.settings } : {}), kindsOf }, hooks);
  } finally {
    await run.close();
  }
}
