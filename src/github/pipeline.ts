// The steps of a run against the service, as the CLI takes them (load, open the client, read the
// live state, plan, apply), returning values or typed failures for the Action to report. Nothing
// here prints or talks to GitHub.

import { literalSource } from '../engine/literals.js';
import { createClient } from '../api/client.js';
import { clientOptionsFromEnv } from '../api/options.js';
import type { ApiClient } from '../api/types.js';
import { loadConfig } from '../config/load.js';
import type { LoadResult } from '../config/types.js';
import { apply } from '../engine/apply.js';
import { attribute } from '../engine/attribute.js';
import { fetchLive } from '../engine/fetch.js';
import { neededKinds } from '../engine/needed-kinds.js';
import { durationText, preflight, preflightLine, readGroups, TOKEN_GROUP } from '../engine/preflight.js';
import { defaultHolder } from '../engine/lease.js';
import { plan as computePlan } from '../engine/plan.js';
import { type ChangedAccounts, narrowScope, type ScopeRequest } from '../engine/plan-scope.js';
import { KINDS } from '../kinds/index.js';
import type { AccountConfig, DesiredState } from '../model/account.js';
import { type Diagnostic, hasErrors } from '../model/diagnostics.js';
import type { ApplyReport, Plan } from '../model/plan.js';

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

export async function load(dir: string, env: NodeJS.ProcessEnv, missingEnv?: 'skip'): Promise<LoadResult> {
  return loadConfig(dir, { env, ...(missingEnv ? { missingEnv } : {}) });
}

export function loadedState(result: LoadResult): DesiredState {
  if (!result.state || hasErrors(result.diagnostics)) throw new RunFailure({ kind: 'invalid', diagnostics: result.diagnostics });
  return result.state;
}

export interface Planned {
  plan: Plan;
  client: ApiClient;
  /** What was planned from: apply takes the values of secrets written literally from here. */
  desired: DesiredState;
}

/** Reads the live state of the accounts in scope and plans; the caller closes the client. */
/** What the run may take: `max-duration` (seconds), and where the pre-flight line goes. */
export interface RunLimits {
  maxDurationSeconds?: number;
  onPreflight?: (line: string) => void;
  /** Finds the changed accounts with the client (the records of the last apply), before the scope is narrowed. */
  changedFrom?: (client: ApiClient, selected: readonly AccountConfig[]) => Promise<ChangedAccounts>;
}

export async function planAgainstService(
  desired: DesiredState,
  env: NodeJS.ProcessEnv,
  accounts: string[],
  request: ScopeRequest = {},
  limits: RunLimits = {},
): Promise<Planned> {
  const declared = desired.root.accounts;
  const unknown = accounts.filter((a) => !declared.some((d) => d.name === a));
  if (unknown.length > 0) {
    throw new RunFailure({
      kind: 'no-plan',
      diagnostics: [{ severity: 'error', code: 'unknown-account', message: `input accounts names ${unknown.join(', ')}, not declared in postureops.yaml (declared: ${declared.map((d) => d.name).join(', ')})` }],
    });
  }
  const selected = accounts.length === 0 ? declared : declared.filter((d) => accounts.includes(d.name));
  let client: ApiClient;
  try {
    client = createClient(clientOptionsFromEnv(env, {}));
  } catch (err) {
    throw new RunFailure({ kind: 'service', message: messageOf(err) });
  }
  if (limits.changedFrom) {
    try {
      request = { ...request, changed: await limits.changedFrom(client, selected) };
    } catch (err) {
      await client.close();
      if (err instanceof RunFailure) throw err;
      throw new RunFailure({ kind: 'service', message: messageOf(err) });
    }
  }
  const narrowed = narrowScope(desired, selected, request);
  const scope = narrowed.accounts;
  const kindsOf = neededKinds(desired, KINDS);
  // Pre-flight, before the first request: a runner keeps no budget from earlier runs, so every
  // bucket is taken to be full.
  const estimate = preflight([TOKEN_GROUP, ...readGroups(scope, kindsOf)], [], Date.now());
  limits.onPreflight?.(`Pre-flight (read): ${preflightLine(estimate)}`);
  if (limits.maxDurationSeconds !== undefined && estimate.seconds > limits.maxDurationSeconds) {
    await client.close();
    throw new RunFailure({
      kind: 'too-long',
      message: `the read would take about ${durationText(estimate.seconds)} (${preflightLine(estimate)}), more than max-duration ${durationText(limits.maxDurationSeconds)}; nothing was sent.`,
    });
  }
  try {
    const live = await fetchLive(client, scope, KINDS, { settings: desired.root.settings, kindsOf });
    const result = computePlan(desired, live, {
      accounts: scope.map((a) => a.name),
      budget: client.budget(),
      apiCalls: live.calls,
      ...(narrowed.scope ? { scope: narrowed.scope } : {}),
    });
    if (!result.plan || hasErrors(result.diagnostics)) throw new RunFailure({ kind: 'no-plan', diagnostics: result.diagnostics });
    return { plan: result.plan, client, desired };
  } catch (err) {
    await client.close();
    if (err instanceof RunFailure) throw err;
    throw new RunFailure({ kind: 'service', message: messageOf(err) });
  }
}

/**
 * Applies the plan. A credential the service issues (an agent access token's value) goes to
 * `onCredential` and nowhere else: never into the report.
 */
export async function applyPlan(planned: Planned, env: NodeJS.ProcessEnv, onCredential?: (key: string, value: string) => void, commit?: string): Promise<ApplyReport> {
  return apply(planned.plan, planned.client, {
    env,
    // Each account that converged records the commit: the next apply starts from there (applied.ts).
    ...(commit !== undefined ? { record: { commit } } : {}),
    literals: literalSource(planned.desired),
    // The workflow's `concurrency` group keeps its own runs apart; the lease, anything else (README).
    lease: { holder: defaultHolder(env) },
    hooks: onCredential ? { onCredential: (change, value) => onCredential(change.key, value) } : {},
  });
}

/**
 * The drift issue says who made the drift: the records' last change is always in the plan; this adds
 * the audit log entries of the drifted accounts. Its problems are warnings in the plan.
 */
export async function attributeDrift(planned: Planned, now: number): Promise<Planned> {
  return { ...planned, plan: (await attribute(planned.plan, planned.client, { now })).plan };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
