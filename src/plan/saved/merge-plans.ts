// Merging the plans of the shards of one run (`plan --shard I/N --out FILE`, one per shard) into the
// plan an unsharded run makes: changes in the same order (the same sort, on the edges the shards'
// `dependsOn` recorded), unmanaged resources sorted the same way, summary and calls summed. Refused
// when the files are not the N disjoint shards of one configuration.

import { mergeRouting } from '../../model/routing.js';
import { type Diagnostic, sortDiagnostics } from '../../model/diagnostics.js';
import { type Action, type BucketNeed, type CallStats, type Plan, PLAN_FORMAT_VERSION, type PlanScope, type Refusal, type Rehearsal, type SkippedAccount } from '../../model/plan.js';
import { KINDS } from '../../kinds/index.js';
import type { Kind } from '../../kinds/types.js';
import { canonicalJson } from '../core/digest.js';
import { sortChanges } from '../core/order.js';
import { sortUnmanaged } from '../steps/prune.js';
import { combine } from '../steps/refuse.js';
import { refText } from '../core/plan-scope.js';

/** The files are not the shards of one plan: what is wrong, naming the files. */
export class MergeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MergeError';
  }
}

export interface ShardPlan {
  /** Where the plan came from, for messages. */
  file: string;
  plan: Plan;
}

function checkShards(inputs: readonly ShardPlan[]): { count: number; order: string[] } {
  if (inputs.length === 0) throw new MergeError('no plan files to merge');
  for (const { file, plan } of inputs) {
    if (!plan.scope?.shard || !plan.scope.rootAccounts || !plan.scope.configDigest) {
      throw new MergeError(`${file} is not the plan of a shard (make each with postureops plan --shard I/N --out FILE)`);
    }
  }
  const first = inputs[0];
  const s0 = first.plan.scope!;
  const count = s0.shard!.count;
  const same = (what: string, pick: (p: Plan) => unknown, describe: (p: Plan) => string): void => {
    for (const other of inputs.slice(1)) {
      if (canonicalJson(pick(other.plan)) !== canonicalJson(pick(first.plan))) {
        throw new MergeError(`${first.file} and ${other.file} were planned ${what} (${describe(first.plan)} and ${describe(other.plan)}): plan every shard from the same commit and options`);
      }
    }
  };
  same('as shards of different counts', (p) => p.scope!.shard!.count, (p) => `of ${p.scope!.shard!.count}`);
  same('from different configurations', (p) => p.scope!.configDigest, (p) => `digest ${p.scope!.configDigest!.slice(0, 12)}`);
  same('from different account lists', (p) => p.scope!.rootAccounts, (p) => `${p.scope!.rootAccounts!.length} accounts`);
  same(
    'against different commits',
    (p) => p.scope!.changedSince ?? null,
    (p) => (p.scope!.changedSince ? `--changed-since ${refText(p.scope!.changedSince.ref, p.scope!.changedSince.commit)}` : 'without --changed-since'),
  );
  same('with different --target selectors', (p) => p.targets ?? null, (p) => (p.targets ? p.targets.join(', ') : 'no --target'));
  same('with different settings', (p) => p.settings ?? null, () => 'settings differ');
  const byIndex = new Map<number, string>();
  for (const { file, plan } of inputs) {
    const index = plan.scope!.shard!.index;
    const seen = byIndex.get(index);
    if (seen !== undefined) throw new MergeError(`${seen} and ${file} are both shard ${index} of ${count}: the shards overlap`);
    byIndex.set(index, file);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    throw new MergeError(`shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} of ${count} ${missing.length === 1 ? 'is' : 'are'} missing: merge the plans of all ${count} shards`);
  }
  const owner = new Map<string, string>();
  for (const { file, plan } of inputs) {
    for (const a of plan.accounts) {
      const other = owner.get(a.name);
      if (other !== undefined) throw new MergeError(`account ${a.name} is planned by both ${other} and ${file}: the shards overlap`);
      owner.set(a.name, file);
    }
  }
  return { count, order: [...s0.rootAccounts!] };
}

/** The requests of several runs together, per bucket. */
export function sumCalls(all: readonly CallStats[]): CallStats {
  const byBucket: Record<string, number> = {};
  for (const c of all) for (const [b, n] of Object.entries(c.byBucket)) byBucket[b] = (byBucket[b] ?? 0) + n;
  return { total: all.reduce((t, c) => t + c.total, 0), byBucket };
}

/** Per bucket: the requests of all shards; each shard applies with its own key, so the longest wait counts. */
function mergeBudget(all: readonly BucketNeed[][]): BucketNeed[] {
  const by = new Map<string, BucketNeed[]>();
  for (const list of all) for (const b of list) by.set(b.bucket, [...(by.get(b.bucket) ?? []), b]);
  return [...by.keys()].sort().map((bucket) => {
    const needs = by.get(bucket)!;
    const limit = needs[0].limit;
    return {
      bucket,
      needed: needs.reduce((t, b) => t + b.needed, 0),
      ...(limit !== undefined && needs.every((b) => b.limit === limit) ? { limit } : {}),
      waitSeconds: Math.max(...needs.map((b) => b.waitSeconds)),
    };
  });
}

export function mergePlans(inputs: readonly ShardPlan[], kinds: readonly Kind[] = KINDS): Plan {
  const { order } = checkShards(inputs);
  const plans = inputs.map((i) => i.plan);
  const rank = new Map(order.map((a, i) => [a, i]));
  const byRank = (a: string, b: string): number => (rank.get(a) ?? order.length) - (rank.get(b) ?? order.length) || (a < b ? -1 : a > b ? 1 : 0);

  const accounts = plans.flatMap((p) => p.accounts).sort((a, b) => byRank(a.name, b.name));
  const planned = new Set(accounts.map((a) => a.name));
  const all = plans.flatMap((p) => p.changes);
  const edges = all.flatMap((c) => c.dependsOn.map((d): [string, string] => [d, c.key]));
  const sorted = sortChanges(all, edges, kinds, accounts.map((a) => a.name));
  if (sorted.changes.length !== all.length) throw new MergeError('the shards\' changes depend on each other in a cycle: plan without --shard');
  const changes = sorted.changes;
  const unmanaged = sortUnmanaged(plans.flatMap((p) => p.unmanaged), order, kinds);

  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const d of plans.flatMap((p) => p.diagnostics)) {
    const key = canonicalJson(d);
    if (seen.has(key)) continue;
    seen.add(key);
    diagnostics.push(d);
  }

  const skippedBy = new Map<string, string>();
  for (const p of plans) for (const s of p.scope!.skipped) if (!planned.has(s.account) && !skippedBy.has(s.account)) skippedBy.set(s.account, s.reason);
  const skipped: SkippedAccount[] = order.filter((a) => skippedBy.has(a)).map((account) => ({ account, reason: skippedBy.get(account)! }));
  const changedSince = plans[0].scope!.changedSince;
  const scope: PlanScope | undefined = changedSince || skipped.length > 0 ? { ...(changedSince ? { changedSince: { ...changedSince } } : {}), skipped } : undefined;

  // preventDestroy first: the one refusal --force does not override decides the code (a rehearsal's
  // is beyond --force whatever the code: refuseUnlessForced reads the rehearsal).
  const refusals = plans.map((p) => p.refusal).filter((r): r is Refusal => r !== undefined);
  const refusal = [...refusals.filter((r) => r.code === 'prevent-destroy'), ...refusals.filter((r) => r.code !== 'prevent-destroy')].reduce<Refusal | undefined>(
    (acc, r) => combine(acc, r),
    undefined,
  );

  // Each shard read its own accounts: their unread kinds join in account order.
  const unread = plans.flatMap((p) => p.unread ?? []).sort((a, b) => byRank(a.account, b.account));

  // Each shard compared the routing of its own accounts.
  const routing = mergeRouting(plans.map((p) => p.routing), byRank);
  // Each shard rehearsed its own accounts.
  const rehearsal = mergeRehearsals(plans.map((p) => p.rehearsal));

  const attributed = plans.map((p) => p.attribution).filter((a) => a !== undefined);
  const count = (action: Action): number => changes.filter((c) => c.action === action).length;
  const first = plans[0];
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    accounts,
    changes,
    summary: { create: count('create'), update: count('update'), replace: count('replace'), delete: count('delete'), unmanaged: unmanaged.length },
    unmanaged,
    diagnostics: sortDiagnostics(diagnostics),
    ...(first.targets ? { targets: [...first.targets] } : {}),
    ...(first.settings ? { settings: structuredClone(first.settings) } : {}),
    ...(scope ? { scope } : {}),
    ...(refusal ? { refusal } : {}),
    ...(routing ? { routing } : {}),
    ...(rehearsal ? { rehearsal } : {}),
    apiCalls: sumCalls(plans.map((p) => p.apiCalls)),
    budget: mergeBudget(plans.map((p) => p.budget)),
    ...(unread.length > 0 ? { unread: unread.map((u) => ({ account: u.account, kinds: [...u.kinds] })) } : {}),
    ...(attributed.length > 0
      ? {
          attribution: {
            ...attributed[0],
            accounts: [...new Set(attributed.flatMap((a) => a.accounts))].sort(byRank),
            start: attributed.map((a) => a.start).sort()[0],
            end: attributed.map((a) => a.end).sort().at(-1)!,
          },
        }
      : {}),
  };
}

/** The shards' rehearsals as one: the worst outcome, the counts summed, the changes in shard order. */
export function mergeRehearsals(parts: readonly (Rehearsal | undefined)[]): Rehearsal | undefined {
  const given = parts.filter((r): r is Rehearsal => r !== undefined);
  if (given.length === 0) return undefined;
  const worst = (['failed', 'refused', 'unsettled', 'clean'] as const).find((o) => given.some((r) => r.outcome === o))!;
  const sum = (pick: (r: Rehearsal) => number | undefined): number => given.reduce((n, r) => n + (pick(r) ?? 0), 0);
  const refused = given.flatMap((r) => r.refused ?? []);
  const remaining = given.flatMap((r) => r.remaining ?? []);
  const message = given.find((r) => r.outcome === worst && r.message !== undefined)?.message;
  return {
    outcome: worst,
    accepted: sum((r) => r.accepted),
    ...(refused.length > 0 ? { refused } : {}),
    ...(sum((r) => r.notTried) > 0 ? { notTried: sum((r) => r.notTried) } : {}),
    ...(remaining.length > 0 ? { remaining: remaining.slice(0, 5), remainingCount: sum((r) => r.remainingCount ?? r.remaining?.length) } : {}),
    ...(message !== undefined ? { message } : {}),
  };
}
