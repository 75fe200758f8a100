// The plan run the CLI's plan and apply and the Action's every mode share: the accounts asked for,
// narrowed (changed-since, shard), the run opened, the read's pre-flight and its refusal, the live
// state read, the plan built, and (on request) who made the drift.

import { literalSource } from '../ops/apply/literals.js';
import { declaredParents, neededKinds } from '../ops/live/needed-kinds.js';
import { plan as buildPlan } from '../plan/steps/plan.js';
import { leaseRestGroups, leaseTakeGroups, preflight, readGroups, retryReserve, writeGroups } from '../ops/budget/preflight.js';
import { serviceCheckGroups, serviceChecks } from '../ops/live/service-checks.js';
import { countWrites, withBudget } from '../ops/budget/budget.js';
import { KINDS } from '../kinds/index.js';
import type { AccountConfig, DesiredState } from '../model/account.js';
import { type Diagnostic, hasErrors } from '../model/diagnostics.js';
import type { LiteralSource } from '../model/env-markers.js';
import type { Plan, PlanResult } from '../model/plan.js';
import type { ApiClient, BucketBudget } from '../api/types.js';
import { RunError } from './errors.js';
import { desiredOf, type LoadProgress, type LoadResult } from './load.js';
import { mayReadAhead, ReadAhead } from './read-ahead.js';
import { changedOffline, narrow, type ReadHooks, readLive, type ScopeInput, selectAccounts } from './read.js';
import type { StartRehearsal } from './rehearse.js';
import { Run, type RunSetup } from './run.js';

export interface PlanRequest extends ScopeInput {
  /**
   * The configuration, or how to load it: given a loader, a plain plan starts reading the live state
   * while the files load (read-ahead.ts), and a configuration with errors is a RunError (`invalid`).
   */
  desired: DesiredState | LoadDesired;
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
  /**
   * Rehearse a plan with changes on the stand-in this starts (the adapters pass the emulator's
   * startEmulator); absent: no rehearsal (`--no-rehearse`).
   */
  rehearse?: StartRehearsal;
}

export interface PlanHooks extends ReadHooks {
  /** The plan's diagnostics, and then those of the attribution. */
  diagnostics?(diagnostics: Diagnostic[]): void | Promise<void>;
  /** The audit log is about to be read. */
  attributing?(): void;
  /** A plan with changes is about to be rehearsed; what this returns is called when it ends. */
  rehearsing?(plan: Plan): (() => void) | void;
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

/** Loads the configuration (its diagnostics shown by the caller), telling `progress` as it goes. */
export type LoadDesired = (progress?: LoadProgress) => Promise<LoadResult>;

/** The configuration of a request, loaded when it is a loader; with the run, and the lists read ahead, when a read could start during the load. */
async function loadFor(setup: RunSetup, request: PlanRequest): Promise<{ desired: DesiredState; run?: Run; ahead?: ReadAhead }> {
  const load = request.desired;
  if (typeof load !== 'function') return { desired: load };
  if (!mayReadAhead(setup, request)) return { desired: desiredOf(await load()) };
  let run: Run;
  try {
    run = Run.open(setup);
  } catch {
    // Bad service settings are said after the configuration's own problems, as without a loader.
    return { desired: desiredOf(await load()) };
  }
  try {
    const known = await run.knownBudget();
    const ahead = new ReadAhead(run, request.accounts, known, request.rehearse !== undefined);
    run.readingAhead(known);
    const result = await load(ahead);
    ahead.stop();
    try {
      return { desired: desiredOf(result), run, ahead };
    } catch (err) {
      const sent = ahead.sent();
      if (err instanceof RunError && err.problem.kind === 'invalid' && sent > 0) throw new RunError({ ...err.problem, sent });
      throw err;
    }
  } catch (err) {
    await run.close();
    throw err;
  }
}

/** Accounts, scope, run, pre-flight, read, plan. A RunError says why there is no plan. */
export async function planRun(setup: RunSetup, request: PlanRequest, hooks: PlanHooks = {}): Promise<Planned> {
  const loaded = await loadFor(setup, request);
  const { desired, ahead } = loaded;
  let selected: AccountConfig[];
  let offline: Awaited<ReturnType<typeof changedOffline>>;
  try {
    selected = selectAccounts(desired.root.accounts, request.accounts);
    // Git first: a ref that names nothing fails before anything is sent.
    offline = await changedOffline(request.dir, desired, request);
  } catch (err) {
    await loaded.run?.close();
    throw err;
  }
  const run = loaded.run ?? Run.open(setup);
  try {
    const { accounts, scope } = await narrow(run, desired, selected, request, offline);
    const kindsOf = neededKinds(desired, KINDS);
    const parentsOf = declaredParents(desired, KINDS);
    await run.preflight([...readGroups(accounts, kindsOf, 'both', parentsOf), ...serviceCheckGroups(desired, accounts, KINDS), ...(request.lease ? leaseTakeGroups() : [])], 'read');
    // The lease first: the live state this plan comes from is read under it.
    if (request.lease) await run.takeLease({ declared: desired.root.accounts, accounts });
    const live = await readLive(run, accounts, { settings: desired.root.settings, kindsOf, parentsOf, ...(ahead?.lists ? { ahead: ahead.lists } : {}), ...(request.rehearse ? { keepLists: true } : {}) }, hooks);
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
    const literals = literalSource(desired);
    let plan = result.plan;
    if (request.rehearse && plan.changes.length > 0) {
      const ended = hooks.rehearsing?.(plan);
      try {
        // The rehearsal (and the apply executor it runs) is loaded only when a plan has changes to rehearse.
        const { rehearsed } = await import('./rehearse.js');
        plan = await rehearsed(run, request.rehearse, { plan, desired, live, env: setup.env, literals, settings: desired.root.settings, kindsOf, parentsOf });
      } finally {
        ended?.();
      }
    }
    if (request.attribute) {
      hooks.attributing?.();
      const { attribute } = await import('../ops/live/attribute.js');
      const attributed = await attribute(plan, run.client, { now: run.now() });
      await hooks.diagnostics?.(attributed.diagnostics);
      plan = attributed.plan;
    }
    return { plan, run, desired, literals, ...(request.force ? { force: true as const } : {}) };
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
  // The requests of the changes, built once for both the writes' pre-flight and the plan's budget.
  const counted = built.plan ? countWrites(built.plan.changes, KINDS, built.plan.accounts) : undefined;
  const writes = built.plan ? writeGroups(built.plan.changes, KINDS, built.plan.accounts, counted) : [];
  const rest = leaseRestGroups(preflight(writes, budget, now).seconds, client.requestBoundMs?.());
  const leased = lease.noLease ? [] : [...(lease.lease ? [] : leaseTakeGroups()), ...rest];
  const result = withBudget(built, KINDS, budget, leased, counted);
  if (!result.plan || result.plan.changes.length === 0) return result;
  const leaseRequests = leased.reduce((n, g) => n + g.requests, 0);
  const retry = retryReserve(result.plan.changes, client.retryBudget?.());
  return { ...result, plan: { ...result.plan, ...(lease.noLease ? {} : { leaseRequests }), retryReserve: retry } };
}

/** The accounts of `plan` with changes. */
export function changedAccounts(plan: Plan): AccountConfig[] {
  return plan.accounts.filter((a) => plan.changes.some((c) => c.account === a.name));
}
