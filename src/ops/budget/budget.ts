// How many requests apply will send per rate-limit bucket, and how long it would wait for them.
// Requests are built through the kinds with a placeholder id: only method and path matter here.

import type { ApiRequest, BucketBudget } from '../../api/types.js';
import type { AccountConfig } from '../../model/account.js';
import { type Diagnostic, sortDiagnostics } from '../../model/diagnostics.js';
import { API_PREFIX, bucketOf } from '../../api/buckets.js';
import type { DesiredResource } from '../../model/resource.js';
import type { Kind, RequestContext } from '../../kinds/types.js';
import type { BucketNeed, Change, PlanResult } from '../../model/plan.js';
import { requestTarget } from '../../model/account.js';

/** Stands in for ids that exist only once apply has created the resource. */
export const PLACEHOLDER_ID = 'planned-id';

/** Requests `change` will send (apply may add look-ups after an unknown outcome). */
export function changeRequests(change: Change, kinds: readonly Kind[], accounts: readonly AccountConfig[]): ApiRequest[] {
  const kind = kinds.find((k) => k.kind === change.kind);
  if (!kind) throw new Error(`unknown kind ${change.kind}`);
  const orgAccess = requestTarget(change.account, accounts).orgAccess === true;
  const ctx: RequestContext = { account: change.account, orgAccess, resolve: () => PLACEHOLDER_ID };
  const id = change.liveId ?? PLACEHOLDER_ID;
  const desired = (): DesiredResource => ({
    kind: change.kind,
    account: change.account,
    name: change.name,
    ...(change.parent !== undefined ? { parent: change.parent } : {}),
    spec: change.after ?? {},
    envRefs: {},
  });
  const children = (): DesiredResource[] => {
    const childKind = kinds.find((k) => k.hierarchy?.parentKind === change.kind);
    return (change.children ?? []).map((c) => ({
      kind: childKind?.kind ?? change.kind,
      account: change.account,
      name: c.name,
      parent: change.name,
      spec: c.after,
      envRefs: {},
    }));
  };
  // A kind whose ids are credentials has its real id read afresh before an update or a delete.
  const lookUp = (): ApiRequest[] =>
    kind.credentials?.secretIds ? [{ method: 'GET', path: `${API_PREFIX}/${kind.collection}`, ...requestTarget(change.account, accounts) }] : [];
  switch (change.action) {
    case 'create':
      return [kind.createRequest(desired(), children(), ctx)];
    case 'update':
      return [...lookUp(), ...kind.updateRequests(id, desired(), change.changed ?? [], ctx)];
    case 'replace':
      return [...lookUp(), kind.deleteRequest(id, ctx), kind.createRequest(desired(), children(), ctx)];
    case 'delete':
      return [...lookUp(), kind.deleteRequest(id, ctx)];
  }
}

/**
 * Requests of `changes` with the updates of a kind updated in bulk (Kind.bulkUpdate) sent as one
 * request per account and kind, as apply sends them; every other change through changeRequests.
 * Each is handed to `each` in turn and kept by none. `onError`: a change whose requests cannot be
 * built (it is left out).
 */
export function planRequests(
  changes: readonly Change[],
  kinds: readonly Kind[],
  accounts: readonly AccountConfig[],
  onError: (change: Change, err: unknown) => void,
  each: (req: ApiRequest) => void,
): void {
  const bulks = new Set<string>();
  for (const change of changes) {
    const bulk = change.action === 'update' ? kinds.find((k) => k.kind === change.kind)?.bulkUpdate : undefined;
    if (bulk) {
      const group = JSON.stringify([change.account, change.kind]);
      if (bulks.has(group)) continue;
      bulks.add(group);
      const ctx: RequestContext = { account: change.account, orgAccess: requestTarget(change.account, accounts).orgAccess === true, resolve: () => PLACEHOLDER_ID };
      const desired: DesiredResource = { kind: change.kind, account: change.account, name: change.name, spec: change.after ?? {}, envRefs: {} };
      each(bulk.request([{ id: change.liveId ?? PLACEHOLDER_ID, desired, changed: change.changed ?? [] }], ctx));
      continue;
    }
    let requests: ApiRequest[];
    try {
      requests = changeRequests(change, kinds, accounts);
    } catch (err) {
      onError(change, err);
      continue;
    }
    for (const req of requests) each(req);
  }
}

/** Seconds between two requests of a bucket that refills `limit` per hour. */
export function refillSecondsOf(limit: number): number | undefined {
  return limit > 0 ? 3600 / limit : undefined;
}

/**
 * Seconds until the last of `needed` requests can be sent: what is left goes at once; the first
 * request beyond it waits for RateLimit-Reset (the service's own count of seconds until the next
 * token; one token interval when it says nothing), every further one a token interval more.
 */
export function waitSecondsFor(needed: number, budget: BucketBudget | undefined): number {
  if (!budget || needed <= budget.remaining) return 0;
  const short = needed - Math.max(0, budget.remaining);
  const interval = refillSecondsOf(budget.limit);
  if (interval === undefined) return budget.resetSeconds;
  const first = budget.resetSeconds > 0 ? budget.resetSeconds : interval;
  return Math.ceil(first + (short - 1) * interval);
}

/**
 * A bucket as last seen (by an earlier run, say), brought forward to `now`: it has refilled at
 * `limit` per hour since, starting `resetSeconds` after it was seen when it was empty.
 */
export function budgetAt(budget: BucketBudget, now: number): BucketBudget {
  const elapsed = Math.max(0, (now - budget.observedAt) / 1000);
  const interval = refillSecondsOf(budget.limit);
  if (interval === undefined || elapsed === 0) return budget;
  // Seconds from the observation until the next token: Reset when it was empty, else unknown (one interval).
  const firstAt = budget.resetSeconds > 0 ? budget.resetSeconds : interval;
  if (elapsed < firstAt) return { ...budget, resetSeconds: Math.ceil(firstAt - elapsed), observedAt: now };
  const gained = 1 + Math.floor((elapsed - firstAt) / interval);
  const remaining = Math.min(budget.limit, Math.max(0, budget.remaining) + gained);
  const nextIn = remaining >= budget.limit ? 0 : Math.ceil(firstAt + gained * interval - elapsed);
  // Reset here is the time to the next token, also with some left: what the first request short waits for.
  return { ...budget, remaining, resetSeconds: nextIn, observedAt: now };
}

function need(bucket: string, needed: number, budget: BucketBudget): BucketNeed {
  const waitSeconds = waitSecondsFor(needed, budget);
  const refillSeconds = refillSecondsOf(budget.limit);
  return {
    bucket,
    needed,
    limit: budget.limit,
    remaining: budget.remaining,
    waitSeconds,
    ...(waitSeconds > 0 && refillSeconds !== undefined ? { short: needed - Math.max(0, budget.remaining), refillSeconds } : {}),
  };
}

/** The requests changes will send, per bucket, and a warning for each change whose requests cannot be built (left out). */
export interface WriteCount {
  perBucket: ReadonlyMap<string, number>;
  diagnostics: Diagnostic[];
}

/**
 * The requests of `changes` per bucket (planRequests): built once per plan, for both the plan's
 * budget (withBudget) and the pre-flight of its writes (writeGroups).
 */
export function countWrites(changes: readonly Change[], kinds: readonly Kind[], accounts: readonly AccountConfig[]): WriteCount {
  const diagnostics: Diagnostic[] = [];
  const onError = (change: Change, err: unknown): void => {
    diagnostics.push({
      severity: 'warning',
      code: 'budget-estimate',
      message: `cannot estimate the requests of ${change.key} (${change.action}): ${err instanceof Error ? err.message : String(err)}`,
    });
  };
  const perBucket = new Map<string, number>();
  // The bucket of a method and path, worked out once per distinct pair: the creates of a kind
  // in an account all send the same one.
  const buckets = new Map<string, string>();
  planRequests(changes, kinds, accounts, onError, (req) => {
    const pair = `${req.method} ${req.path}`;
    let bucket = buckets.get(pair);
    if (bucket === undefined) {
      bucket = bucketOf(req.method, req.path);
      buckets.set(pair, bucket);
    }
    perBucket.set(bucket, (perBucket.get(bucket) ?? 0) + 1);
  });
  return { perBucket, diagnostics };
}

export function budgetNeeds(
  changes: readonly Change[],
  kinds: readonly Kind[],
  accounts: readonly AccountConfig[],
  budget: readonly BucketBudget[] = [],
  /** Requests beyond the changes' own (the apply lease's), one bucket each. */
  extra: readonly { buckets: string[]; requests: number }[] = [],
  /** countWrites of `changes`, when the caller has it already. */
  counted: WriteCount = countWrites(changes, kinds, accounts),
): { needs: BucketNeed[]; diagnostics: Diagnostic[] } {
  const counts = new Map<string, number>();
  for (const group of extra) counts.set(group.buckets[0], (counts.get(group.buckets[0]) ?? 0) + group.requests);
  const diagnostics = [...counted.diagnostics];
  for (const [bucket, n] of counted.perBucket) counts.set(bucket, (counts.get(bucket) ?? 0) + n);
  // Every bucket of the service has the same size: a bucket not used yet is taken to be full.
  const fullSize = budget.reduce((m, b) => Math.max(m, b.limit), 0);
  const needs = [...counts.keys()].sort().map((bucket): BucketNeed => {
    const needed = counts.get(bucket)!;
    const known = budget.find((b) => b.bucket === bucket);
    if (known) return need(bucket, needed, known);
    if (fullSize === 0) return { bucket, needed, waitSeconds: 0 };
    const assumed: BucketBudget = { bucket, limit: fullSize, remaining: fullSize, resetSeconds: 0, observedAt: 0 };
    // Not seen yet: full, unless another run has just drained it; both ends are shown.
    const drained = waitSecondsFor(needed, { ...assumed, remaining: 0 });
    return { ...need(bucket, needed, assumed), estimated: true, drainedWaitSeconds: drained };
  });
  return { needs, diagnostics };
}

/**
 * The plan with the requests its apply will send per bucket, against the budget the client knows
 * (`client.budget()`): the run layer attaches it after the pure plan() (a request a kind cannot
 * build is a warning, added to the plan's diagnostics).
 */
export function withBudget(
  result: PlanResult,
  kinds: readonly Kind[],
  budget: readonly BucketBudget[] = [],
  extra: readonly { buckets: string[]; requests: number }[] = [],
  /** countWrites of the plan's changes, when the caller has it already. */
  counted?: WriteCount,
): PlanResult {
  if (!result.plan) return result;
  const { changes, accounts } = result.plan;
  const { needs, diagnostics } = budgetNeeds(changes, kinds, accounts, budget, changes.length > 0 ? extra : [], counted ?? countWrites(changes, kinds, accounts));
  if (diagnostics.length === 0) return { ...result, plan: { ...result.plan, budget: needs } };
  const all = sortDiagnostics([...result.diagnostics, ...diagnostics]);
  return { diagnostics: all, plan: { ...result.plan, budget: needs, diagnostics: all } };
}
