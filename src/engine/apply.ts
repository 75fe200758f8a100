// apply: the only place that writes to the service. It executes exactly the changes of a Plan
// (never diffing again), in plan order, each once its dependencies are done, at most
// `concurrency` at a time, and reports results in plan order whatever the timing was.

import type { ApiClient } from '../api/types.js';
import { type CallStats, ACTIONS, type ApplyReport, type ApplySummary, type Change, type ChangeResult, PLAN_FORMAT_VERSION, type Plan } from '../model/plan.js';
import { KINDS } from '../kinds/index.js';
import type { Kind } from '../kinds/types.js';
import { type ChangeOutcome, CreatedIds, runChange } from './apply-change.js';
import { planSecretValues, SecretRedactor } from './apply-redact.js';
import { type EngineHooks } from './types.js';

export interface ApplyOptions {
  /** Values for the plan's `${env:...}` markers. */
  env: Record<string, string | undefined>;
  /** Kind registry; defaults to KINDS. */
  kinds?: readonly Kind[];
  /** Changes in flight at once; default 4. */
  concurrency?: number;
  /** After a successful create, update or replace, send the kind's test request where it has one. */
  testResources?: boolean;
  hooks?: EngineHooks;
  /** Seconds the client has spent waiting for rate-limit buckets so far (the report shows the delta). */
  waited?: () => number;
}

export const DEFAULT_CONCURRENCY = 4;

export async function apply(plan: Plan, client: ApiClient, options: ApplyOptions): Promise<ApplyReport> {
  const changes = plan.changes;
  const keys = new Set<string>();
  for (const c of changes) {
    if (keys.has(c.key)) throw new Error(`the plan holds two changes with the key ${c.key}`);
    keys.add(c.key);
  }
  const limit = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`concurrency must be a positive integer, got ${limit}`);
  const hooks = options.hooks ?? {};
  const statsBefore = structuredClone(client.stats());
  const waitedBefore = options.waited?.() ?? 0;

  const runner = {
    client,
    kinds: options.kinds ?? KINDS,
    env: options.env,
    accounts: plan.accounts,
    testResources: options.testResources ?? false,
    created: new CreatedIds(),
    redactor: new SecretRedactor(planSecretValues(plan, options.env)),
  };

  const results = new Map<string, ChangeResult>();
  const dependents = new Map<string, Change[]>();
  for (const c of changes) {
    for (const dep of c.dependsOn) {
      if (keys.has(dep)) dependents.set(dep, [...(dependents.get(dep) ?? []), c]);
    }
  }
  const pending = new Set(keys);

  const settle = (change: Change, outcome: ChangeOutcome): void => {
    const result: ChangeResult = { ...identity(change), ...outcome };
    results.set(change.key, result);
    notify(() => hooks.onChangeDone?.(result));
  };
  const skipDependents = (failedKey: string): void => {
    const queue = [...(dependents.get(failedKey) ?? [])];
    for (let c = queue.shift(); c; c = queue.shift()) {
      if (!pending.has(c.key)) continue;
      pending.delete(c.key);
      settle(c, { status: 'skipped', reason: `depends on ${failedKey}, which failed` });
      queue.push(...(dependents.get(c.key) ?? []));
    }
  };
  // A dependency outside the plan is not ours to wait for.
  const ready = (c: Change): boolean => c.dependsOn.every((dep) => !keys.has(dep) || results.get(dep)?.status === 'done');

  await new Promise<void>((finish) => {
    let running = 0;
    const pump = (): void => {
      for (const change of changes) {
        if (running >= limit) break;
        if (!pending.has(change.key) || !ready(change)) continue;
        pending.delete(change.key);
        running++;
        notify(() => hooks.onChangeStart?.(change));
        void runChange(change, runner).then((outcome) => {
          running--;
          settle(change, outcome);
          if (outcome.status === 'failed') skipDependents(change.key);
          pump();
        });
      }
      if (running > 0) return;
      // Nothing runs and nothing can start: what is left waits on itself.
      for (const change of changes) {
        if (!pending.has(change.key)) continue;
        const waiting = change.dependsOn.filter((d) => pending.has(d));
        settle(change, { status: 'failed', reason: `not started: its dependencies form a cycle (${waiting.join(', ')})` });
      }
      pending.clear();
      finish();
    };
    pump();
  });

  const ordered = changes.map((c) => results.get(c.key) as ChangeResult);
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    results: ordered,
    summary: summarize(ordered),
    apiCalls: statsDelta(statsBefore, client.stats()),
    waitedSeconds: Math.max(0, (options.waited?.() ?? 0) - waitedBefore),
  };
}

function identity(change: Change): Pick<ChangeResult, 'key' | 'action' | 'kind' | 'account' | 'name'> {
  return { key: change.key, action: change.action, kind: change.kind, account: change.account, name: change.name };
}

/** Every result counted once per action and once per status (the plan's changes, by outcome). */
export function summarize(results: readonly ChangeResult[]): ApplySummary {
  const summary = {} as ApplySummary;
  for (const action of ACTIONS) summary[action] = 0;
  for (const status of ['done', 'failed', 'skipped'] as const) summary[status] = 0;
  for (const r of results) {
    summary[r.status]++;
    summary[r.action]++;
  }
  return summary;
}

export function statsDelta(before: CallStats, after: CallStats): CallStats {
  const byBucket: Record<string, number> = {};
  for (const bucket of Object.keys(after.byBucket).sort()) {
    const n = after.byBucket[bucket] - (before.byBucket[bucket] ?? 0);
    if (n > 0) byBucket[bucket] = n;
  }
  return { total: after.total - before.total, byBucket };
}

/** Progress hooks are for display: a failing one must not stop or fail an apply half-way. */
function notify(call: () => void): void {
  try {
    call();
  } catch {
    // ignored on purpose: see above
  }
}
