// The steps every run against the service shares before it plans: the accounts asked for, narrowed
// to the changed ones and to a shard, and the live state of those read with one list per collection.

import { type FetchOptions, fetchLive, type ListsAhead, type ParentsOf } from '../ops/live/fetch.js';
import type { AppliedState } from '../ops/apply/applied.js';
import type { ChangedAccounts, NarrowedScope } from '../plan/core/plan-scope.js';
import type { Shard } from '../plan/core/shard.js';
import type { LiveState } from '../model/live.js';
import type { Kind } from '../kinds/types.js';
import { KINDS } from '../kinds/index.js';
import type { AccountConfig, DesiredState } from '../model/account.js';
import type { JsonObject } from '../model/json.js';
import { RunError } from './errors.js';
import type { Run } from './run.js';

export type { AppliedState } from '../ops/apply/applied.js';

/** The accounts in scope: all declared ones, or those named (each must be declared). */
export function selectAccounts(declared: readonly AccountConfig[], names: readonly string[] | undefined): AccountConfig[] {
  if (!names || names.length === 0) return [...declared];
  const unknown = names.filter((n) => !declared.some((a) => a.name === n));
  if (unknown.length > 0) throw new RunError({ kind: 'unknown-account', unknown, declared: declared.map((a) => a.name) });
  return declared.filter((a) => names.includes(a.name));
}

/** How a plan's accounts are narrowed after the accounts asked for. */
export interface ScopeInput {
  /** `--changed-since REF`: read with git in `dir`. */
  changedSince?: string;
  /**
   * Changed accounts the adapter found itself, or finds from the records of the last apply of each
   * selected account, which the run reads with its client (one list per account).
   */
  changed?: ChangedAccounts | ((applied: ReadonlyMap<string, AppliedState>, selected: readonly AccountConfig[]) => Promise<ChangedAccounts>);
  /** `--shard I/N`. */
  shard?: Shard;
}

/** The changed accounts known without the service (git), read before any client exists. */
export async function changedOffline(dir: string, desired: DesiredState, input: ScopeInput): Promise<ChangedAccounts | undefined> {
  if (input.changed !== undefined && typeof input.changed !== 'function') return input.changed;
  if (input.changedSince === undefined) return undefined;
  // git and the scope's narrowing are loaded only by a run that narrows (start-up of a plain plan).
  const [{ changedSinceRef }, { GitError }] = await Promise.all([import('../config/changed.js'), import('../util/git.js')]);
  try {
    return await changedSinceRef(dir, desired.root, input.changedSince);
  } catch (err) {
    if (err instanceof GitError) throw new RunError({ kind: 'scope', message: err.message });
    throw err;
  }
}

/** The accounts to read and the scope the plan records; `changed` as found offline or with the client. */
export async function narrow(run: Run, desired: DesiredState, selected: AccountConfig[], input: ScopeInput, offline: ChangedAccounts | undefined): Promise<NarrowedScope> {
  const changed = typeof input.changed === 'function' ? await input.changed(await (await import('../ops/apply/applied.js')).readApplied(run.client, selected), selected) : offline;
  if (changed === undefined && input.shard === undefined) return { accounts: selected };
  const { narrowScope } = await import('../plan/core/plan-scope.js');
  return narrowScope(desired, selected, { ...(changed ? { changed } : {}), ...(input.shard ? { shard: input.shard } : {}) });
}

/** What an adapter shows while the live state is read. */
export interface ReadHooks {
  /** A phase starting: its count (done per account) and its end. */
  reading?(accounts: readonly AccountConfig[], run: Run): { step(): void; end(): void } | undefined;
  /** Wraps the read (the CLI races it with a signal). */
  race?<T>(reading: Promise<T>): Promise<T>;
}

export interface ReadOptions {
  settings?: JsonObject;
  /** The kinds read per account (default: every kind). */
  kindsOf?: (account: AccountConfig) => readonly Kind[];
  /** Kinds listed per parent: the parents read (declaredParents); default every live one. */
  parentsOf?: ParentsOf;
  /** Keep the lists as read (LiveState.lists), for a rehearsal. */
  keepLists?: boolean;
  /** Lists asked for while the files loaded (read-ahead.ts). */
  ahead?: ListsAhead;
  /** Before an account's reads per parent, with the parents each kind reads (FetchOptions.beforeParents). */
  beforeParents?: FetchOptions['beforeParents'];
}

/** The live state of `accounts`, one list per collection of the kinds each needs. */
export async function readLive(run: Run, accounts: readonly AccountConfig[], options: ReadOptions, hooks: ReadHooks = {}): Promise<LiveState> {
  const count = hooks.reading?.(accounts, run);
  const reading = fetchLive(run.client, [...accounts], KINDS, {
    ...(options.settings ? { settings: options.settings } : {}),
    ...(options.kindsOf ? { kindsOf: options.kindsOf } : {}),
    ...(options.parentsOf ? { parentsOf: options.parentsOf } : {}),
    ...(options.keepLists ? { keepLists: true } : {}),
    ...(options.ahead ? { ahead: options.ahead } : {}),
    ...(options.beforeParents ? { beforeParents: options.beforeParents } : {}),
    onAccountRead: () => count?.step(),
  }).finally(() => count?.end());
  return hooks.race ? hooks.race(reading) : reading;
}
