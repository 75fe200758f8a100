// Applying: a fresh plan (planRun), or a saved plan whose changes are derived again from the
// repository and the live state (issue 16). The refusal is the engine's (apply() refuses a refused
// plan unless forced); it is checked here before the write pre-flight too, so an adapter learns it
// before it asks anyone to confirm.

import { apply, type ApplyOptions } from '../ops/apply/apply.js';
import { refuseUnlessForced } from '../ops/apply/apply-refusal.js';
import { checkLiterals, literalSource, planLiteralRefs } from '../ops/apply/literals.js';
import { declaredParents, neededKinds } from '../ops/live/needed-kinds.js';
import { plan as derivePlan } from '../plan/steps/plan.js';
import { withBudget } from '../ops/budget/budget.js';
import { planDifferences } from '../plan/saved/plan-compare.js';
import { checkStale } from '../plan/saved/plan-file.js';
import { leaseGroups, preflight, recordGroups, type RequestGroup, readGroups, writeGroups } from '../ops/budget/preflight.js';
import { KINDS } from '../kinds/index.js';
import type { AccountConfig, DesiredState } from '../model/account.js';
import { hasErrors } from '../model/diagnostics.js';
import type { ApplyReport, Plan } from '../model/plan.js';
import { RunError } from './errors.js';
import { changedAccounts, type Planned } from './plan-run.js';
import { type ReadHooks, readLive } from './read.js';
import { Run, type RunSetup } from './run.js';

export interface ApplyChecks {
  force?: boolean;
  /** The apply takes the service-side lease (its requests count in the pre-flight). */
  lease: boolean;
  /**
   * The apply records the commit in every account of the plan (the Action): each account is leased
   * and written then, changes or not, so the pre-flight counts them all.
   */
  record?: boolean;
}

/**
 * Before anyone is asked to confirm: a refused plan stops here (PlanRefusedError, the engine's rule),
 * and with a maximum duration the writes' pre-flight runs against the budget as the read left it.
 */
export async function readyToApply(planned: Planned, checks: ApplyChecks): Promise<void> {
  const { plan, run } = planned;
  refuseUnlessForced(plan, checks.force);
  if (!run.bounded() || planned.writesEstimated) return;
  if (plan.changes.length === 0 && !checks.record) return;
  // Apply leases every account of the plan when it records the commit, else those with changes.
  const leasedAccounts = checks.record ? plan.accounts : changedAccounts(plan);
  const leased = checks.lease ? leaseRequests(run, leasedAccounts, plan) : [];
  const recorded = checks.record && checks.lease ? recordGroups(plan.accounts, KINDS) : [];
  await run.preflight([...writeGroups(plan.changes, KINDS, plan.accounts), ...leased, ...recorded], 'apply');
}

/** Applies the planned changes through the engine (which refuses a refused plan unless `force`). */
export async function applyRun(planned: Planned, options: Omit<ApplyOptions, 'literals' | 'waited'>): Promise<ApplyReport> {
  const { run } = planned;
  return apply(planned.plan, run.client, { ...options, literals: planned.literals, waited: () => run.waitedSeconds() });
}

/**
 * The apply lease's requests for the pre-flight: taking, fencing each write, freeing, and renewals
 * for as long as the writes (with the lease's own) take by the budget as the client knows it.
 */
export function leaseRequests(run: Run, accounts: readonly AccountConfig[], plan: Pick<Plan, 'changes' | 'accounts'>): RequestGroup[] {
  const writes = writeGroups(plan.changes, KINDS, plan.accounts);
  const { seconds } = preflight([...writes, ...leaseGroups(accounts, KINDS, plan.changes)], run.client.budget(), run.now());
  return leaseGroups(accounts, KINDS, plan.changes, seconds);
}

export interface SavedPlanRequest extends ApplyChecks {
  desired: DesiredState;
  /** The saved plan, as read (and its signature checked) by the adapter: untrusted. */
  saved: Plan;
}

/**
 * A saved plan is untrusted input. Its changes are derived again from the repository and the live
 * state, with the plan's targets, in every account the plan changes, and the plan is refused unless
 * it holds exactly those changes. What runs is the derived plan, so a value the file holds (an
 * `${env:...}` the repository does not write there) is never read. An account the file changes
 * nothing in is neither read nor written.
 */
export async function deriveSavedPlan(setup: RunSetup, request: SavedPlanRequest, hooks: ReadHooks = {}): Promise<Planned> {
  const { desired, saved } = request;
  if (planLiteralRefs(saved).length > 0) {
    const moved = checkLiterals(saved, literalSource(desired));
    if (moved) throw new RunError({ kind: 'saved-literals', message: moved.message, details: moved.details });
  }
  const declared = new Set(desired.root.accounts.map((a) => a.name));
  const foreign = saved.accounts.filter((a) => !declared.has(a.name));
  if (foreign.length > 0) throw new RunError({ kind: 'saved-foreign', names: foreign.map((a) => a.name) });
  const accounts = desired.root.accounts.filter((a) => saved.changes.some((c) => c.account === a.name));
  const run = Run.open(setup);
  try {
    const kindsOf = neededKinds(desired, KINDS);
    const parentsOf = declaredParents(desired, KINDS);
    // Before the first request: the read the derivation needs and the writes, against the budget last reported.
    const leased = request.lease ? leaseRequests(run, accounts, saved) : [];
    await run.preflight([...readGroups(accounts, kindsOf, 'both', parentsOf), ...writeGroups(saved.changes, KINDS, accounts), ...leased], 'read and apply');
    const live = await readLive(run, accounts, { settings: desired.root.settings, kindsOf, parentsOf }, hooks);
    // Rotation is asked for per change in the file; the derived plan rotates the same resources.
    const rotate = saved.changes.filter((c) => c.rotate === true).map((c) => `${c.account}/${c.kind}/${c.name}`);
    const result = withBudget(derivePlan(desired, live, {
      accounts: accounts.map((a) => a.name),
      force: request.force,
      rotate,
      ...(saved.targets ? { targets: saved.targets } : {}),
      apiCalls: live.calls,
      ...(saved.scope ? { scope: saved.scope } : {}),
    }), KINDS, run.client.budget());
    const derived = result.plan && !hasErrors(result.diagnostics) ? result.plan : undefined;
    // Stale (the world moved) and different (the file or the repository moved): both named, one refusal.
    const stale = checkStale(saved, live);
    const differences = derived ? planDifferences(saved, derived, desired.root.accounts) : [];
    if (stale || differences.length > 0) {
      throw new RunError({ kind: 'saved-differs', ...(stale ? { stale: { message: stale.message, details: stale.details } } : {}), differences });
    }
    if (!derived) throw new RunError({ kind: 'no-plan', diagnostics: result.diagnostics, saved: true });
    return { plan: derived, run, desired, literals: literalSource(desired), writesEstimated: true };
  } catch (err) {
    await run.close();
    throw err;
  }
}
