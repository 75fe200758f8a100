// The Action's `changed-since`: the accounts whose documents changed since a commit, read with git in
// the checkout. A shallow checkout (actions/checkout's default depth 1) lacks the base commit: it is
// fetched (`git fetch --depth=1 origin SHA`) before the comparison. `last-applied` compares each account
// with the commit of its last successful apply, recorded in the service (src/ops/apply/applied.ts).

import { changedSinceRef } from '../config/changed.js';
import type { ChangedAccounts } from '../plan/core/plan-scope.js';
import type { DesiredState } from '../model/account.js';
import { fetchCommit, GitError, hasCommit, resolveCommit } from '../util/git.js';
import type { AppliedState } from '../ops/apply/applied.js';
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

/** `changed-since: last-applied`: the ref the scope line shows. */
export const LAST_APPLIED = 'last-applied';

/** The commit of the checkout (what an apply records), or undefined outside a git repository. */
export async function headCommit(dir: string): Promise<string | undefined> {
  return resolveCommit(dir, 'HEAD').catch(() => undefined);
}

/**
 * `last-applied`: every account whose documents changed since its own last successful apply (its
 * record in the service), every account without a readable record, and every account whose recorded
 * commit the checkout lacks and cannot fetch (history rewritten). Each of those is said in the log.
 */
export async function changedSinceApplied(
  dir: string,
  desired: DesiredState,
  records: ReadonlyMap<string, AppliedState>,
  head: string,
  log: (line: string) => void,
): Promise<ChangedAccounts> {
  const changed = new Set<string>();
  const byCommit = new Map<string, string[]>();
  const whole: string[] = [];
  for (const [account, state] of records) {
    if (typeof state === 'string') {
      changed.add(account);
      whole.push(`${account} (${state === 'none' ? 'no record of a successful apply' : 'its record cannot be read'})`);
    } else if (state.commit !== head) byCommit.set(state.commit, [...(byCommit.get(state.commit) ?? []), account]);
  }
  for (const [commit, accounts] of byCommit) {
    let since: ReadonlySet<string>;
    try {
      since = (await changedSince(dir, desired, commit, log)).accounts;
    } catch (err) {
      if (!(err instanceof RunFailure)) throw err;
      for (const a of accounts) whole.push(`${a} (its last applied commit ${commit.slice(0, 7)} is not in the repository)`);
      since = new Set(accounts);
    }
    for (const a of accounts) if (since.has(a)) changed.add(a);
  }
  if (whole.length > 0) log(`postureops: planning every resource of ${whole.join(', ')}`);
  const at = new Map<string, string[]>();
  for (const [account, state] of records) if (typeof state !== 'string') at.set(state.commit, [...(at.get(state.commit) ?? []), account]);
  if (at.size > 0) log(`postureops: last applied: ${[...at].map(([c, accounts]) => `${accounts.join(', ')} at ${c.slice(0, 7)}`).join('; ')}`);
  // The scope line names one commit: the one most of the skipped accounts were last applied at.
  const counts = new Map<string, number>();
  for (const [account, state] of records) if (typeof state !== 'string' && !changed.has(account)) counts.set(state.commit, (counts.get(state.commit) ?? 0) + 1);
  const shown = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? head;
  return { ref: LAST_APPLIED, commit: shown, accounts: changed };
}
