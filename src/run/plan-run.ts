// The plan run the CLI's plan and apply and the Action's every mode share: the accounts asked for,
// narrowed (changed-since, shard), the run opened, the read's pre-flight and its refusal, the live
// state read, the plan built, and (on request) who made the drift.

import { attribute } from '../ops/live/attribute.js';
import { literalSource } from '../ops/apply/literals.js';
import { declaredParents, neededKinds } from '../ops/live/needed-kinds.js';
import { plan as buildPlan } from '../plan/steps/plan.js';
import { leaseRestGroups, leaseTakeGroups, preflight, readGroups, retryReserve, writeGroups } from '../ops/budget/preflight.js';
import { serviceCheckGroups, serviceChecks } from '../ops/live/service-checks.js';
import { withBudget } from '../ops/budget/budget.js';
import { KINDS } from '../kinds/index.js';
import type { AccountConfig, DesiredState } from '../model/account.js';
import { type Diagnostic, hasErrors } from '../model/diagnostics.js';
import type { LiteralSource } from '../model/env-markers.js';
import type { Plan, PlanResult } from '../model/plan.js';
import type { ApiClient, BucketBudget } from '../api/types.js';
import { RunError } from './errors.js';
import { changedOffline, narrow, type ReadHooks, readLive, type ScopeInput, selectAccounts } from './read.js';
import { Run, type RunSetup } from './run.js';

export interface PlanRequest extends ScopeInput {
  desired: DesiredState;
  /** The repository folder (git is read there for `changedSince`). */
  dir: string;
  /** Accounts asked for (`--account`, the `accounts` input); every declared one when empty. */
  accounts?: string[];
  force?: boolean;
  rotate?: string[];
  targets?: string[];
  /** Read the audit log of the accounts with drift (`plan --attribute`). */
  attribute?: boolean;
  /** Take the apply lease before reading (apply): the plan is then read under it. */
  lease?: boolean;
  /** The apply takes no lease (`--no-lease`): its estimate counts none. */
  noLease?: boolean;
}

export interface PlanHooks extends ReadHooks {
  /** The plan's diagnostics, and then those of the attribution. */
  diagnostics?(diagnostics: Diagnostic[]): void | Promise<void>;
  /** The audit log is about to be read. */
  attributing?(): void;
}

/** A plan and the run it came from: the caller applies it or closes the run. */
export interface Planned {
  plan: Plan;
  run: Run;
  desired: DesiredState;
  /** Values of the secrets the repository writes literally: apply takes them from here. */
  literals: LiteralSource;
  /** The writes were in the run's first pre-flight already (a saved plan's). */
  writesEstimated?: true;
  /** `--force` as the request gave it: the plan, the refusal check and the apply all read it here. */
  force?: true;
}

/** Accounts, scope, run, pre-flight, read, plan. A RunError says why there is no plan. */
export async function planRun(setup: RunSetup, request: PlanRequest, hooks: PlanHooks = {}): Promise<Planned> {
  const { desired } = request;
  const selected = selectAccounts(desired.root.accounts, request.accounts);
  // Git first: a ref that names nothing fails before anything is sent.
  const offline = await changedOffline(request.dir, desired, request);
  const run = Run.open(setup);
  try {
    const { accounts, scope } = await narrow(run, desired, selected, request, offline);
    const kindsOf = neededKinds(desired, KINDS);
    const parentsOf = declaredParents(desired, KINDS);
    await run.preflight([...readGroups(accounts, kindsOf, 'both', parentsOf), ...serviceCheckGroups(desired, accounts, KINDS), ...(request.lease ? leaseTakeGroups() : [])], 'read');
    // The lease first: the live state this plan comes from is read under it.
    if (request.lease) await run.takeLease({ declared: desired.root.accounts, accounts });
    const live = await readLive(run, accounts, { settings: desired.root.settings, kindsOf, parentsOf }, hooks);
    const built = buildPlan(desired, live, {
      accounts: accounts.map((a) => a.name),
      force: request.force,
      rotate: request.rotate,
      targets: request.targets,
      apiCalls: live.calls,
      ...(scope ? { scope } : {}),
    });
    // The apply's lease counts in the estimate: what it still sends once taken (renewals for as long
    // as the writes take, its release), and taking it when this plan was read without it.
    const result = planEstimate(built, await run.planBudget(), run.now(), run.client, request);
    // Problems go with the error (the adapter shows them once); a plan's warnings go to the hook.
    if (!result.plan || hasErrors(result.diagnostics)) throw new RunError({ kind: 'no-plan', diagnostics: result.diagnostics });
    // What only the service can judge (Kind.serviceCheck), asked of what the plan would send.
    const refused = await serviceChecks(run.client, result.plan, desired, KINDS);
    if (refused.length > 0) throw new RunError({ kind: 'no-plan', diagnostics: [...result.diagnostics, ...refused] });
    await hooks.diagnostics?.(result.diagnostics);
    let plan = result.plan;
    if (request.attribute) {
      hooks.attributing?.();
      const attributed = await attribute(plan, run.client, { now: run.now() });
      await hooks.diagnostics?.(attributed.diagnostics);
      plan = attributed.plan;
    }
    return { plan, run, desired, literals: literalSource(desired), ...(request.force ? { force: true as const } : {}) };
  } catch (err) {
    await run.close();
    throw err;
  }
}

/**
 * The plan's estimate, as its apply's pre-flight counts it: the writes per bucket against `budget`,
 * the apply lease's requests (what it still sends once taken: renewals for as long as the writes
 * take, its release; and taking it when the plan was read without it), and the retries reserved
 * under faults. `budget` is the run's at `now` (Run.planBudget).
 */
export function planEstimate(
  built: PlanResult,
  budget: readonly BucketBudget[],
  now: number,
  client: Pick<ApiClient, 'requestBoundMs' | 'retryBudget'>,
  lease: Pick<PlanRequest, 'lease' | 'noLease'> = {},
): PlanResult {
  const writes = built.plan ? writeGroups(built.plan.changes, KINDS, built.plan.accounts) : [];
  const rest = leaseRestGroups(preflight(writes, budget, now).seconds, client.requestBoundMs?.());
  const leased = lease.noLease ? [] : [...(lease.lease ? [] : leaseTakeGroups()), ...rest];
  const result = withBudget(built, KINDS, budget, leased);
  if (!result.plan || result.plan.changes.length === 0) return result;
  const leaseRequests = leased.reduce((n, g) => n + g.requests, 0);
  const retry = retryReserve(result.plan.changes, client.retryBudget?.());
  return { ...result, plan: { ...result.plan, ...(lease.noLease ? {} : { leaseRequests }), retryReserve: retry } };
}

/** The accounts of `plan` with changes. */
export function changedAccounts(plan: Plan): AccountConfig[] {
  return plan.accounts.filter((a) => plan.changes.some((c) => c.account === a.name));
}
