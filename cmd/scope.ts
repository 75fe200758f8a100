// `--changed-since REF` and `--shard I/N`: the accounts a plan reads, after --account. Git is read
// here (through src/util/git.ts); what changed means is decided in src/config/changed.ts, the shard
// in src/engine/shard.ts.

import { resolve } from 'node:path';
import type { AccountConfig, DesiredState } from '../src/model/account.js';
import type { PlanScope } from '../src/model/plan.js';
import type { Shard } from '../src/engine/shard.js';
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
  const { narrowScope } = await import('../src/engine/plan-scope.js');
  let changed;
  if (flags.changedSince !== undefined) {
    const [{ gitChanges, GitError }, { changedAccounts }] = await Promise.all([import('../src/util/git.js'), import('../src/config/changed.js')]);
    const abs = resolve(io.cwd, dir);
    try {
      const git = await gitChanges(abs, flags.changedSince);
      const found = await changedAccounts({ dir: abs, root: desired.root, changed: git.changed, readOld: (p) => git.readAtCommit(p) });
      changed = { ref: flags.changedSince, commit: git.commit, accounts: new Set(found.accounts) };
    } catch (err) {
      if (err instanceof GitError) throw new ExitError(EXIT.error, err.message);
      throw err;
    }
  }
  return narrowScope(desired, selected, { ...(changed ? { changed } : {}), ...(flags.shard ? { shard: flags.shard } : {}) });
}
