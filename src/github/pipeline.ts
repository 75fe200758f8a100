// The Action's side of a run: the run layer (src/run) does the work the CLI's commands also do
// (accounts, scope, client, pre-flight, read, plan, apply); this turns its problems into the typed
// failures the Action reports. Nothing here prints or talks to GitHub.

import { join } from 'node:path';
import type { ChangedAccounts } from '../plan/core/plan-scope.js';
import type { Shard } from '../plan/core/shard.js';
import type { AccountConfig, DesiredState } from '../model/account.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { ApplyReport, Plan } from '../model/plan.js';
import { applyRun, leasePolicy, readyToApply } from '../run/apply-run.js';
import { type BudgetMemory, fileBudgetMemory, NO_BUDGET_MEMORY } from '../run/budget-memory.js';
import { rememberedNote, RunError, type RunProblem } from '../run/errors.js';
import { desiredOf, loadConfiguration, type LoadResult } from '../run/load.js';
import { planRun, type Planned } from '../run/plan-run.js';
import type { AppliedState } from '../run/read.js';
import type { StartRehearsal } from '../run/rehearse.js';
import type { RunSetup } from '../run/run.js';
import { startEmulator } from '../emulator/index.js';

export type { Planned } from '../run/plan-run.js';

/** Why a run produced no plan; each has its own remedy in the comment. */
export type Failure =
  | { kind: 'invalid'; diagnostics: Diagnostic[] }
  | { kind: 'service'; message: string }
  | { kind: 'no-plan'; diagnostics: Diagnostic[] }
  | { kind: 'refused'; plan: Plan }
  /** What changed could not be found (changed-since: git, a missing commit). */
  | { kind: 'scope'; message: string }
  /** The shards' plan files could not be merged (mode merge). */
  | { kind: 'merge'; message: string }
  /** The pre-flight estimate is over `max-duration`: nothing was sent. */
  | { kind: 'too-long'; message: string };

export class RunFailure extends Error {
  constructor(readonly failure: Failure) {
    super(failure.kind);
    this.name = 'RunFailure';
  }
}

/** `onRead`: told each value the loader reads, as it reads it (before anything could print it). */
export async function load(dir: string, env: NodeJS.ProcessEnv, onRead: (values: readonly string[]) => void, missingEnv?: 'skip'): Promise<LoadResult> {
  return loadConfiguration(dir, { env, onRead, ...(missingEnv ? { missingEnv } : {}) });
}

export function loadedState(result: LoadResult): DesiredState {
  try {
    return desiredOf(result);
  } catch (err) {
    if (err instanceof RunError) throw new RunFailure(failureOf(err.problem));
    throw err;
  }
}

/**
 * The Action keeps the buckets in the job's RUNNER_TEMP: the steps of one job (several folders, or a
 * plan and then an apply) share the key's budget, and the runner empties the folder when the job
 * ends, so nothing outlives it or reaches another workflow. Outside a runner: no memory.
 */
export function actionBudgetMemory(env: NodeJS.ProcessEnv): (baseUrl: string, keyId: string) => BudgetMemory {
  const temp = env.RUNNER_TEMP;
  return temp ? (baseUrl, keyId) => fileBudgetMemory(join(temp, 'postureops'), baseUrl, keyId) : () => NO_BUDGET_MEMORY;
}

/** What the run is asked for: the inputs that shape the plan. */
export interface PlanInputs {
  dir: string;
  accounts: string[];
  /** Changed accounts found with git (changed-since), or with the client (last-applied). */
  changed?: ChangedAccounts | ((applied: ReadonlyMap<string, AppliedState>, selected: readonly AccountConfig[]) => Promise<ChangedAccounts>);
  shard?: Shard;
  targets?: string[];
  rotate?: string[];
  attribute?: boolean;
  /** `max-duration`, in seconds. */
  maxDurationSeconds?: number;
  /** Where the pre-flight line goes (the log). */
  onPreflight?: (line: string) => void;
  /** Take the apply lease before reading (apply). */
  lease?: boolean;
  /** Rehearse a plan with changes on the emulator seeded with the live lists (the `rehearse` input). */
  rehearse?: boolean;
}

/**
 * The rehearsal's stand-in (src/run/rehearse.ts): the emulator in this process, seeded with the lists
 * the run read. The run layer is handed it, so the emulator stays apart from what it checks.
 */
const startRehearsal: StartRehearsal = (seed) => startEmulator(seed);

/** A run problem as the Action's failure (its comment, annotation and outputs). */
export function failureOf(problem: RunProblem): Failure {
  switch (problem.kind) {
    case 'invalid':
      return { kind: 'invalid', diagnostics: problem.diagnostics };
    case 'refused':
      return { kind: 'refused', plan: problem.plan };
    case 'unset-env':
      return { kind: 'service', message: `nothing was applied: the plan reads variables that are not set: ${problem.names.join(', ')} (set them as the job's env from secrets)` };
    case 'client-config':
      return { kind: 'service', message: problem.message };
    case 'scope':
      return { kind: 'scope', message: problem.message };
    case 'unknown-account':
      return {
        kind: 'no-plan',
        diagnostics: [{ severity: 'error', code: 'unknown-account', message: `input accounts names ${problem.unknown.join(', ')}, not declared in postureops.yaml (declared: ${problem.declared.join(', ')})` }],
      };
    case 'too-long': {
      const t = problem.too;
      return { kind: 'too-long', message: `the ${t.what} would take about ${t.text.seconds} (${t.line}), more than max-duration ${t.text.maxDuration}; ${t.nothingSent ? 'nothing was sent' : 'nothing was written'}${rememberedNote(t)}.` };
    }
    case 'no-plan':
      return { kind: 'no-plan', diagnostics: problem.diagnostics };
    // The Action applies what it planned itself; these come from `apply --plan` (a saved plan).
    case 'saved-literals':
      return { kind: 'service', message: `the saved plan takes values from the repository that changed: ${problem.message}` };
    case 'saved-foreign':
      return { kind: 'service', message: `the saved plan names ${problem.names.length} account(s) the repository does not declare` };
    case 'saved-differs':
      return { kind: 'service', message: `the saved plan ${problem.stale ? 'is stale' : 'is not the plan the repository asks for'}` };
    case 'lease-held':
      return { kind: 'service', message: `${problem.message}; the next run applies what this one did not` };
    case 'lease-wait-stopped':
      return { kind: 'service', message: problem.message };
  }
}

/** Reads the live state of the accounts in scope and plans; the caller closes `planned.run`. */
export async function planAgainstService(desired: DesiredState, env: NodeJS.ProcessEnv, inputs: PlanInputs): Promise<Planned> {
  const setup: RunSetup = {
    env,
    flags: inputs.maxDurationSeconds !== undefined ? { maxDuration: inputs.maxDurationSeconds } : {},
    memory: actionBudgetMemory(env),
    ...(inputs.onPreflight ? { onPreflight: (note) => inputs.onPreflight?.(note.line) } : {}),
    ...(inputs.lease ? { lease: leasePolicy(env) } : {}),
  };
  try {
    return await planRun(setup, {
      desired,
      dir: inputs.dir,
      accounts: inputs.accounts,
      ...(inputs.changed ? { changed: inputs.changed } : {}),
      ...(inputs.shard ? { shard: inputs.shard } : {}),
      ...(inputs.targets && inputs.targets.length > 0 ? { targets: inputs.targets } : {}),
      ...(inputs.rotate && inputs.rotate.length > 0 ? { rotate: inputs.rotate } : {}),
      attribute: inputs.attribute,
      lease: inputs.lease === true,
      ...(inputs.rehearse ? { rehearse: startRehearsal } : {}),
    });
  } catch (err) {
    if (err instanceof RunError) throw new RunFailure(failureOf(err.problem));
    if (err instanceof RunFailure) throw err;
    throw new RunFailure({ kind: 'service', message: messageOf(err) });
  }
}

/**
 * Before the apply starts: the engine's refusal (the Action never forces), and with max-duration the
 * writes' pre-flight, as the CLI's apply runs them. Throws RunFailure (`refused`, `too-long`).
 */
export async function readyForApply(planned: Planned, commit?: string): Promise<void> {
  try {
    // With a commit, apply records it in every account of the plan (applyPlan): counted too.
    await readyToApply(planned, { lease: true, record: commit !== undefined });
  } catch (err) {
    if (err instanceof RunError) throw new RunFailure(failureOf(err.problem));
    throw err;
  }
}

/**
 * Applies the plan; the engine refuses a refused plan (a `refused` failure). A credential the
 * service issues (an agent access token's value) goes to `onCredential` and nowhere else: never into
 * the report.
 */
export async function applyPlan(planned: Planned, env: NodeJS.ProcessEnv, onCredential?: (key: string, value: string) => void, commit?: string): Promise<ApplyReport> {
  try {
    return await applyRun(planned, {
      env,
      // Each account that converged records the commit: the next apply starts from there (applied.ts).
      ...(commit !== undefined ? { record: { commit } } : {}),
      // The workflow's `concurrency` group keeps its own runs apart; the lease (taken before the
      // read, planAgainstService), anything else (README).
      hooks: onCredential ? { onCredential: (change, value) => onCredential(change.key, value) } : {},
    });
  } catch (err) {
    if (err instanceof RunError) throw new RunFailure(failureOf(err.problem));
    throw err;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
