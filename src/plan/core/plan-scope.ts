// Which accounts a plan covers when `--changed-since` and `--shard` narrow it (after `--account`),
// and the scope the plan records: the accounts it skipped and why. Pure: the changed accounts come
// from the caller (git is read in cmd/ and src/github through src/util/git.ts).

import { createHash } from 'node:crypto';
import type { AccountConfig, DesiredState } from '../../model/account.js';
import type { JsonObject } from '../../model/json.js';
import { setAt } from '../../model/json-pointer.js';
import type { PlanScope, SkippedAccount } from '../../model/plan.js';
import { canonicalJson } from './digest.js';
import { assignShards, type Shard } from './shard.js';

export interface ChangedAccounts {
  /** The ref as the user gave it, and the commit it resolved to. */
  ref: string;
  commit: string;
  /** Accounts with a document (or the root file) changed since `commit`. */
  accounts: ReadonlySet<string>;
}

export interface ScopeRequest {
  changed?: ChangedAccounts;
  shard?: Shard;
}

export interface NarrowedScope {
  /** The accounts to read and plan, in the root file's order. */
  accounts: AccountConfig[];
  /** Undefined when neither --changed-since nor --shard was given. */
  scope?: PlanScope;
}

/** `origin/main (3f2a1c9)`, or the short commit alone when the ref was the commit. */
export function refText(ref: string, commit: string): string {
  const short = commit.slice(0, 7);
  return ref === commit || (ref.length >= 7 && commit.startsWith(ref)) ? short : `${ref} (${short})`;
}

export function unchangedReason(changed: Pick<ChangedAccounts, 'ref' | 'commit'>): string {
  return `no document of it changed since ${refText(changed.ref, changed.commit)}`;
}

export function shardReason(index: number, count: number): string {
  return `in shard ${index} of ${count}`;
}

/** Desired resources per account, children included: the weight of an account in a shard. */
export function accountWeights(desired: DesiredState): Map<string, number> {
  const weights = new Map<string, number>(desired.root.accounts.map((a) => [a.name, 0]));
  for (const r of desired.resources) weights.set(r.account, (weights.get(r.account) ?? 0) + 1);
  return weights;
}

/**
 * `selected` (the root's accounts, or those of --account) narrowed to the changed ones, then to one
 * shard of those. Accounts left out by either are listed in the scope with the reason.
 */
export function narrowScope(desired: DesiredState, selected: readonly AccountConfig[], request: ScopeRequest): NarrowedScope {
  if (!request.changed && !request.shard) return { accounts: [...selected] };
  const skipped = new Map<string, string>();
  let accounts = [...selected];
  if (request.changed) {
    const changed = request.changed;
    for (const a of accounts) if (!changed.accounts.has(a.name)) skipped.set(a.name, unchangedReason(changed));
    accounts = accounts.filter((a) => changed.accounts.has(a.name));
  }
  if (request.shard) {
    const { index, count } = request.shard;
    const weights = accountWeights(desired);
    const shards = assignShards(accounts.map((a) => ({ name: a.name, weight: weights.get(a.name) ?? 0 })), count);
    shards.forEach((names, i) => {
      if (i !== index - 1) for (const name of names) skipped.set(name, shardReason(i + 1, count));
    });
    const mine = new Set(shards[index - 1]);
    accounts = accounts.filter((a) => mine.has(a.name));
  }
  const order = desired.root.accounts.map((a) => a.name);
  const list: SkippedAccount[] = order.filter((name) => skipped.has(name)).map((account) => ({ account, reason: skipped.get(account)! }));
  const scope: PlanScope = {
    ...(request.changed ? { changedSince: { ref: request.changed.ref, commit: request.changed.commit } } : {}),
    ...(request.shard ? { shard: { index: request.shard.index, count: request.shard.count } } : {}),
    skipped: list,
    ...(request.shard ? { rootAccounts: order, configDigest: configDigest(desired) } : {}),
  };
  return { accounts, scope };
}

/**
 * sha256 of the configuration as planned: the root's accounts and settings and every desired resource,
 * values from the environment as their `${env:...}` templates (the shards of one commit agree on it
 * even when their jobs hold different service keys).
 */
export function configDigest(desired: DesiredState): string {
  const { root } = desired;
  const resources = desired.resources.map((r) => {
    let spec: JsonObject = r.spec;
    for (const [pointer, template] of Object.entries(r.envRefs)) if (pointer !== '') spec = setAt(spec, pointer, template);
    return { account: r.account, kind: r.kind, name: r.name, parent: r.parent, spec, previousNames: r.previousNames, lifecycle: r.lifecycle };
  });
  const doc = {
    accounts: root.accounts,
    defaultAccount: root.defaultAccount,
    prune: root.prune,
    protect: root.protect,
    settings: root.settings,
    secretLiterals: root.secretLiterals,
    resources: resources.map((r) => canonicalJson(r)).sort(),
  };
  return createHash('sha256').update(canonicalJson(doc)).digest('hex');
}
