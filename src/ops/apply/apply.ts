// apply: the only place that writes to the service. It executes exactly the changes of a Plan
// (never diffing again), in plan order, each once its dependencies are done, at most
// `concurrency` at a time, and reports results in plan order whatever the timing was.

import type { ApiClient } from '../../api/types.js';
import { type AppliedRecordReport, type CallStats, ACTIONS, type ApplyReport, type ApplyStop, type ApplySummary, type Change, type ChangeResult, type FailedTest, PLAN_FORMAT_VERSION, type Plan } from '../../model/plan.js';
import { KINDS } from '../../kinds/index.js';
import type { Kind } from '../../kinds/types.js';
import { type ChangeOutcome, CreatedIds, notStarted, RETRY_BUDGET_MS, runBulk, runChange } from './apply-change.js';
import { because } from '../../model/reasons.js';
import { Semaphore } from '../../model/concurrency.js';
import { planRedactor, planSecretValues } from './apply-redact.js';
import type { LiteralSource } from '../../model/env-markers.js';
import { type EngineHooks } from '../../model/live.js';
import { type Leases, LeaseLostError } from '../lease/lease.js';
import { writeApplied } from './applied.js';
import { refuseUnlessForced } from './apply-refusal.js';

export interface ApplyOptions {
  /** Values for the plan's `${env:...}` markers. */
  env: Record<string, string | undefined>;
  /** Values for the plan's literal markers (secrets written in files), from the repository. */
  literals?: LiteralSource;
  /** Kind registry; defaults to KINDS. */
  kinds?: readonly Kind[];
  /** Changes in flight at once; default 4. */
  concurrency?: number;
  /** After a successful create, update or replace, send the kind's test request where it has one. */
  testResources?: boolean;
  hooks?: EngineHooks;
  /** Seconds the client has spent waiting for rate-limit buckets so far (the report shows the delta). */
  waited?: () => number;
  /**
   * Interruption: once aborted, no further change starts (changes under way finish; the client's
   * own stop signal ends their waits). The abort reason (e.g. `SIGINT`) names it in the report.
   */
  signal?: AbortSignal;
  /**
   * The apply lease the run took before it read the live state this plan comes from (lease.ts):
   * every write leaves through its gate, which refuses it once the fence is closed (a lost lease
   * stops the run: `stopped.cause` `lease-lost`). The run releases it, not apply.
   */
  leases?: Leases;
  /**
   * With the lease: record `commit` as the last applied commit of every account of the plan whose
   * changes all succeeded (none counts), so the next apply covers what this one did not (applied.ts).
   */
  record?: { commit: string };
  /** The run's clock and sleep (a retry's budget is measured in time); default the system's. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** How long a create whose outcome stays unknown is tried again (checked each time); default RETRY_BUDGET_MS. */
  retryBudgetMs?: number;
  /** Apply a refused plan anyway (`--force`); `prevent-destroy` is refused whatever this says. */
  force?: boolean;
}

export const DEFAULT_CONCURRENCY = 4;

export async function apply(plan: Plan, client: ApiClient, options: ApplyOptions): Promise<ApplyReport> {
  // Before the lease and the first write: a refused plan writes nothing (PlanRefusedError).
  refuseUnlessForced(plan, options.force);
  const changes = plan.changes;
  const keys = new Set<string>();
  for (const c of changes) {
    if (keys.has(c.key)) throw new Error(`the plan holds two changes with the key ${c.key}`);
    keys.add(c.key);
  }
  const limit = options.concurrency ?? DEFAULT_CONCURRENCY;
  const hooks = options.hooks ?? {};
  const statsBefore = structuredClone(client.stats());
  const waitedBefore = options.waited?.() ?? 0;
  const kinds = options.kinds ?? KINDS;
  const leases = options.leases;

  // Why the run stopped starting changes, once it has: the signal, or the client giving up on the service.
  let stop: Omit<ApplyStop, 'notStarted'> | undefined;
  const interrupted = () => {
    const reason = options.signal?.reason;
    stop ??= { cause: 'interrupted', message: `interrupted${typeof reason === 'string' && reason !== '' ? ` by ${reason}` : ''}` };
  };
  if (options.signal?.aborted) interrupted();
  options.signal?.addEventListener('abort', interrupted, { once: true });

  const runner = {
    client,
    onUnreachable: (err: Error) => {
      stop ??= { cause: 'unreachable', message: err.message };
    },
    stopReason: () => stop?.message,
    onLeaseLost: (err: LeaseLostError) => {
      stop ??= { cause: 'lease-lost', message: err.message };
    },
    gate: leases?.gate,
    now: options.now ?? Date.now,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))),
    retryBudgetMs: options.retryBudgetMs ?? RETRY_BUDGET_MS,
    requestBoundMs: client.requestBoundMs?.() ?? 30_000,
    kinds,
    env: options.env,
    literals: options.literals,
    accounts: plan.accounts,
    testResources: options.testResources ?? false,
    created: new CreatedIds(),
    redactor: planRedactor(plan, options.env, options.literals),
    secretValues: planSecretValues(plan, options.env, options.literals),
    onCredential: (change: Change, value: string) => notify(() => hooks.onCredential?.(change, value)),
  };

  const results = new Map<string, ChangeResult>();
  const settle = (change: Change, outcome: ChangeOutcome): ChangeResult => {
    const result: ChangeResult = { ...identity(change), ...outcome };
    results.set(change.key, result);
    notify(() => hooks.onChangeDone?.(result));
    return result;
  };

  // What waits on itself can never start: every change whose dependencies within the plan lead
  // back to a change that is not done.
  const cyclic = inCycles(changes, keys);
  const slots = new Semaphore(limit);
  /** Per change: its result, and the change whose failure stopped it (itself when it failed). */
  const runs = new Map<string, Promise<{ result: ChangeResult; failedAt?: string }>>();
  const run = (change: Change): Promise<{ result: ChangeResult; failedAt?: string }> => {
    let pending = runs.get(change.key);
    if (pending) return pending;
    pending = (async () => {
      if (cyclic.has(change.key)) {
        const waiting = change.dependsOn.filter((d) => cyclic.has(d));
        return { result: settle(change, { status: 'failed', ...because('dependency-cycle', `not started: its dependencies form a cycle (${waiting.join(', ')})`) }) };
      }
      // A dependency outside the plan is not ours to wait for.
      const deps = await Promise.all(change.dependsOn.filter((d) => keys.has(d)).map((d) => run(byKey.get(d)!)));
      if (stop) return { result: settle(change, notStarted(stop.message)), failedAt: change.key };
      const blocked = deps.find((d) => d.result.status !== 'done');
      if (blocked) {
        const failedAt = blocked.failedAt ?? blocked.result.key;
        return { result: settle(change, { status: 'skipped', ...because('dependency-failed', `depends on ${failedAt}, which failed`) }), failedAt };
      }
      const outcome = await slots.run(async () => {
        // Waiting for a slot may outlast the run.
        if (stop) return notStarted(stop.message);
        notify(() => hooks.onChangeStart?.(change));
        return bulkOf(change) ?? runChange(change, runner);
      });
      const result = settle(change, outcome);
      return outcome.status === 'failed' ? { result, failedAt: change.key } : { result };
    })();
    runs.set(change.key, pending);
    return pending;
  };
  const byKey = new Map(changes.map((c) => [c.key, c]));
  // Kinds updated in bulk (Kind.bulkUpdate): an account's updates go as one request, sent once every
  // one of them has its dependencies done; each change of the group takes its outcome.
  const bulks = new Map<string, Promise<ChangeOutcome>>();
  const bulkOf = (change: Change): Promise<ChangeOutcome> | undefined => {
    if (change.action !== 'update' || !kinds.find((k) => k.kind === change.kind)?.bulkUpdate) return undefined;
    const group = JSON.stringify([change.account, change.kind]);
    let pending = bulks.get(group);
    if (!pending) {
      const members = changes.filter((c) => c.action === 'update' && c.account === change.account && c.kind === change.kind);
      const inGroup = new Set(members.map((m) => m.key));
      pending = (async () => {
        const deps = await Promise.all(members.flatMap((m) => m.dependsOn.filter((d) => keys.has(d) && !inGroup.has(d)).map((d) => run(byKey.get(d)!))));
        const blocked = deps.find((d) => d.result.status !== 'done');
        if (blocked) return { status: 'skipped', ...because('dependency-failed', `sent with the other updates of ${change.kind}, one of which depends on ${blocked.failedAt ?? blocked.result.key}, which failed`) };
        return runBulk(members, runner);
      })();
      bulks.set(group, pending);
    }
    return pending;
  };
  // Started in plan order, so that the slots go to changes in plan order.
  let ordered: ChangeResult[];
  let recorded: AppliedRecordReport | undefined;
  try {
    await Promise.all(changes.map(run));
    ordered = changes.map((c) => results.get(c.key) as ChangeResult);
    if (leases && options.record) recorded = await recordApplied(client, leases, plan, ordered, options.record.commit, stop !== undefined);
  } finally {
    options.signal?.removeEventListener('abort', interrupted);
  }
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    accounts: plan.accounts.map((a) => a.name),
    results: ordered,
    ...(stop ? { stopped: { ...stop, notStarted: countNotStarted(ordered) } } : {}),
    summary: summarize(ordered),
    apiCalls: statsDelta(statsBefore, client.stats()),
    waitedSeconds: Math.max(0, (options.waited?.() ?? 0) - waitedBefore),
    ...(leases ? { lease: leases.report() } : {}),
    ...(recorded ? { recorded } : {}),
    ...failedTestsOf(plan, ordered),
  };
}

/** Tests that failed (`--test-channels`) of channels a routing requirement relies on (the plan's routing says which). */
function failedTestsOf(plan: Plan, results: readonly ChangeResult[]): { failedTests?: FailedTest[] } {
  const required = new Map((plan.routing?.requiredChannels ?? []).map((r) => [JSON.stringify([r.account, r.name]), r.requirements]));
  const failed: FailedTest[] = [];
  for (const r of results) {
    if (!r.test || r.test.ok) continue;
    const requirements = required.get(JSON.stringify([r.account, r.name]));
    if (!requirements) continue;
    failed.push({ account: r.account, kind: r.kind, name: r.name, ...(r.test.message !== undefined ? { message: r.test.message } : {}), requirements: [...requirements] });
  }
  return failed.length > 0 ? { failedTests: failed } : {};
}

/** Writes the applied record of each account whose changes all succeeded; one that fails is reported, not thrown. */
async function recordApplied(client: ApiClient, leases: Leases, plan: Plan, results: readonly ChangeResult[], commit: string, stopped: boolean): Promise<AppliedRecordReport> {
  const report: AppliedRecordReport = { commit, accounts: [], notRecorded: [] };
  for (const account of plan.accounts) {
    const unfinished = results.filter((r) => r.account === account.name && r.status !== 'done').length;
    if (stopped || unfinished > 0) {
      report.notRecorded.push({ account: account.name, reason: stopped ? 'the apply stopped early' : `${unfinished} change(s) not done` });
      continue;
    }
    try {
      await writeApplied(client, leases, account, commit);
      report.accounts.push(account.name);
    } catch (err) {
      report.notRecorded.push({ account: account.name, reason: `the record could not be written: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  return report;
}

/** Keys of the changes that wait, directly or through others, on a dependency cycle within the plan. */
function inCycles(changes: readonly Change[], keys: ReadonlySet<string>): Set<string> {
  const deps = new Map(changes.map((c) => [c.key, c.dependsOn.filter((d) => keys.has(d))]));
  const state = new Map<string, 'visiting' | 'ok' | 'cyclic'>();
  const visit = (key: string): boolean => {
    const s = state.get(key);
    if (s === 'visiting' || s === 'cyclic') return true;
    if (s === 'ok') return false;
    state.set(key, 'visiting');
    let cyclic = false;
    for (const d of deps.get(key) ?? []) if (visit(d)) cyclic = true;
    state.set(key, cyclic ? 'cyclic' : 'ok');
    return cyclic;
  };
  for (const c of changes) visit(c.key);
  return new Set([...state].filter(([, s]) => s === 'cyclic').map(([k]) => k));
}

function identity(change: Change): Pick<ChangeResult, 'key' | 'action' | 'kind' | 'account' | 'name'> {
  return { key: change.key, action: change.action, kind: change.kind, account: change.account, name: change.name };
}

/** Changes the run never started because it stopped: by the code, whatever the message says. */
export function countNotStarted(results: readonly ChangeResult[]): number {
  return results.filter((r) => r.status === 'skipped' && r.reasonCode === 'not-started').length;
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
