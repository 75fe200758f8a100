// `--changed-since REF` and `--shard I/N`: the accounts a plan reads, after --account. What changed
// is read and decided in src/config/changed.ts, the shard in src/engine/plan/shard.ts.

import { resolve } from 'node:path';
import type { AccountConfig, DesiredState } from '../src/model/account.js';
import type { PlanScope } from '../src/model/plan.js';
import type { Shard } from '../src/engine/plan/shard.js';
import { EXIT, ExitError, type Io } from './io.js';

export interface ScopeFlags {
  /** `--changed-since REF`. */
  changedSince?: string;
  /** `--shard I/N`, parsed. */
  shard?: Shard;
}

/** The accounts in scope (root order) and the scope the plan records; no scope without either flag. */
export async function narrowAccounts(
  io: Io,
  dir: string,
  desired: DesiredState,
  selected: AccountConfig[],
  flags: ScopeFlags,
): Promise<{ accounts: AccountConfig[]; scope?: PlanScope }> {
  if (flags.changedSince === undefined && flags.shard === undefined) return { accounts: selected };
  const { narrowScope } = await import('../src/engine/plan/plan-scope.js');
  let changed;
  if (flags.changedSince !== undefined) {
    const [{ GitError }, { changedSinceRef }] = await Promise.all([import('../src/util/git.js'), import('../src/config/changed.js')]);
    try {
      changed = await changedSinceRef(resolve(io.cwd, dir), desired.root, flags.changedSince);
    } catch (err) {
      if (err instanceof GitError) throw new ExitError(EXIT.error, err.message);
      throw err;
    }
  }
  return narrowScope(desired, selected, { ...(changed ? { changed } : {}), ...(flags.shard ? { shard: flags.shard } : {}) });
}
