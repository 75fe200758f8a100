// Applying: a fresh plan (planRun), or a saved plan whose changes are derived again from the
// repository and the live state (issue 16). The refusal is the engine's (apply() refuses a refused
// plan unless forced); it is checked here before the write pre-flight too, so an adapter learns it
// before it asks anyone to confirm.

import { apply, type ApplyOptions } from '../ops/apply/apply.js';
import { PlanRefusedError, refuseUnlessForced } from '../ops/apply/apply-refusal.js';
import { planEnvNames } from '../ops/apply/apply-redact.js';
import { defaultHolder, type LeaseOptions } from '../ops/lease/lease.js';
import { checkLiterals, literalSource, planLiteralRefs } from '../ops/apply/literals.js';
import { declaredParents, neededKinds } from '../ops/live/needed-kinds.js';
import { plan as derivePlan } from '../plan/steps/plan.js';
import { withBudget } from '../ops/budget/budget.js';
import { planDifferences } from '../plan/saved/plan-compare.js';
import { checkStale } from '../plan/saved/plan-file.js';
import { leaseRestGroups, leaseTakeGroups, preflight, recordGroups, type RequestGroup, readGroups, retryReserve, testGroups, writeGroups } from '../ops/budget/preflight.js';
import { KINDS } from '../kinds/index.js';
import type { AccountConfig, DesiredState } from '../model/account.js';
import { hasErrors } from '../model/diagnostics.js';
import type { ApplyReport, Plan } from '../model/plan.js';
import { RunError } from './errors.js';
import { changedAccounts, type Planned } from './plan-run.js';
import { type ReadHooks, readLive } from './read.js';
import { rehearsed, type StartRehearsal } from './rehearse.js';
import { Run, type RunSetup } from './run.js';

/**
 * The lease an apply takes, as the lease itself defines it (holder, waiting, sleeping): passed
 * through whole, so the adapters never spell the lease's options twice.
 */
export type LeasePolicy = LeaseOptions;

/** The lease of this machine's user (POSTUREOPS_LEASE_HOLDER, or user@host), with the adapter's additions. */
export function leasePolicy(env: Record<string, string | undefined>, more: Omit<LeasePolicy, 'holder'> = {}): LeasePolicy {
  return { holder: defaultHolder(env), ...more };
}

export interface ApplyChecks {
  /** The apply takes the service-side lease (its requests count in the pre-flight). */
  lease: boolean;
  /**
   * The apply records the commit in every account of the plan (the Action): each account is leased
   * and written then, changes or not, so the pre-flight counts them all.
   */
  record?: boolean;
  /** `--test-channels`: the tests sent after the writes count too. */
  tests?: boolean;
}

/**
 * Before anyone is asked to confirm: a refused plan stops here (PlanRefusedError, the engine's rule),
 * and with a maximum duration the writes' pre-flight runs against the budget as the read left it.
 */
export async function readyToApply(planned: Planned, checks: ApplyChecks): Promise<void> {
  const { plan, run } = planned;
  refused(() => refuseUnlessForced(plan, planned.force), plan);
  if (!run.bounded() || planned.writesEstimated) return;
  if (plan.changes.length === 0 && !checks.record) return;
  const recorded = checks.record && checks.lease ? recordGroups(plan.accounts) : [];
  const writes = [...writeGroups(plan.changes, KINDS, plan.accounts), ...(checks.tests ? testGroups(plan.changes, KINDS, plan.accounts) : []), ...recorded];
  const leased = checks.lease ? leaseRest(run, writes) : [];
  await run.preflight([...writes, ...leased], 'apply', retryReserve(plan.changes, run.client.retryBudget?.()));
}

/** A refusal of the engine as the run's problem (`refused`). */
function refused<T>(work: () => T, plan: Plan): T {
  try {
    return work();
  } catch (err) {
    if (err instanceof PlanRefusedError) throw new RunError({ kind: 'refused', plan, refusal: err.refusal, overridable: err.overridable });
    throw err;
  }
}

/** What an apply is asked for beyond its plan (whose `force` it keeps: one way in, the plan request). */
export type ApplyRequest = Omit<ApplyOptions, 'literals' | 'waited' | 'leases' | 'force' | 'now' | 'sleep'>;

/**
 * Applies the planned changes through the engine, under the lease the run took before it read
 * (planRun with `lease`), and releases the lease once its writes are answered, so that the report
 * says so. Before the first write: every variable the plan reads is set (`unset-env`, not found
 * missing half-way through), and a refused plan stops (`refused`, unless forced). Both are RunErrors.
 */
export async function applyRun(planned: Planned, request: ApplyRequest): Promise<ApplyReport> {
  const { run, plan } = planned;
  const unset = planEnvNames(plan).filter((name) => request.env[name] === undefined);
  if (unset.length > 0 && plan.changes.length > 0) throw new RunError({ kind: 'unset-env', names: unset });
  const leases = run.lease;
  try {
    const report = await apply(plan, run.client, {
      ...request,
      ...(planned.force ? { force: true } : {}),
      ...(leases ? { leases } : {}),
      literals: planned.literals,
      waited: () => run.waitedSeconds(),
      now: run.now,
      sleep: run.sleep,
    });
    if (!leases) return report;
    await leases.release();
    return { ...report, lease: leases.report() };
  } catch (err) {
    if (err instanceof PlanRefusedError) throw new RunError({ kind: 'refused', plan, refusal: err.refusal, overridable: err.overridable });
    throw err;
  } finally {
    await leases?.release();
  }
}

/**
 * What the lease still sends once taken, for the pre-flight: a renewal (a list and a PATCH) per
 * renewal period of the time the writes take by the budget as the client knows it, and the release.
 */
export function leaseRest(run: Run, writes: readonly RequestGroup[]): RequestGroup[] {
  const { seconds } = preflight(writes, run.client.budget(), run.now());
  return leaseRestGroups(seconds, run.client.requestBoundMs?.());
}

export interface SavedPlanRequest extends ApplyChecks {
  /** Apply a refused plan anyway (`--force`); the derived plan and its apply keep it. */
  force?: boolean;
  desired: DesiredState;
  /** The saved plan, as read (and its signature checked) by the adapter: untrusted. */
  saved: Plan;
  /** Rehearse the derived plan on the stand-in this starts (as PlanRequest.rehearse); absent: `--no-rehearse`. */
  rehearse?: StartRehearsal;
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
    const writes = [...writeGroups(saved.changes, KINDS, accounts), ...(request.tests ? testGroups(saved.changes, KINDS, accounts) : [])];
    const leased = request.lease ? [...leaseTakeGroups(), ...leaseRest(run, writes)] : [];
    await run.preflight([...readGroups(accounts, kindsOf, 'both', parentsOf), ...writes, ...leased], 'read and apply', retryReserve(saved.changes, run.client.retryBudget?.()));
    // The lease first: the live state the derivation reads is read under it.
    if (request.lease) await run.takeLease({ declared: desired.root.accounts, accounts });
    const live = await readLive(run, accounts, { settings: desired.root.settings, kindsOf, parentsOf, ...(request.rehearse ? { keepLists: true } : {}) }, hooks);
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
    const literals = literalSource(desired);
    const plan = request.rehearse
      ? await rehearsed(run, request.rehearse, { plan: derived, desired, live, env: setup.env, literals, settings: desired.root.settings, kindsOf, parentsOf })
      : derived;
    return { plan, run, desired, literals, writesEstimated: true, ...(request.force ? { force: true as const } : {}) };
  } catch (err) {
    await run.close();
    throw err;
  }
}
