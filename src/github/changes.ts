// The Action's `changed-since`: the accounts whose documents changed since a commit, read with git in
// the checkout. A shallow checkout (actions/checkout's default depth 1) lacks the base commit: it is
// fetched (`git fetch --depth=1 origin SHA`) before the comparison.

import { changedSinceRef } from '../config/changed.js';
import type { ChangedAccounts } from '../engine/plan-scope.js';
import type { DesiredState } from '../model/account.js';
import { fetchCommit, GitError, hasCommit } from '../util/git.js';
import { RunFailure } from './pipeline.js';

export async function changedSince(dir: string, desired: DesiredState, ref: string, log: (line: string) => void): Promise<ChangedAccounts> {
  try {
    if (/^[0-9a-f]{40}$/i.test(ref) && !(await hasCommit(dir, ref))) {
      log(`postureops: commit ${ref.slice(0, 7)} is not in the checkout (a shallow clone); fetching it`);
      await fetchCommit(dir, ref).catch((err: unknown) => {
        throw new GitError(
          `changed-since ${ref.slice(0, 7)}: the commit is not in the checkout and could not be fetched (${err instanceof Error ? err.message : String(err)}); check out with fetch-depth: 0, or set changed-since: none to plan every account`,
        );
      });
    }
    return await changedSinceRef(dir, desired.root, ref);
  } catch (err) {
    if (err instanceof GitError) throw new RunFailure({ kind: 'scope', message: err.message });
    throw err;
  }
}
