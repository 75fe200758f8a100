// The rehearsal (issue 35): before anything is written, the plan is applied to a stand-in of the
// service seeded with the live lists this run just read (the adapters start the emulator and hand
// it in: the run layer does not import it, so the emulator stays an independent oracle), in the
// plan's order, by the same executor; then the repository is planned against the stand-in's result.
// Nothing of it reaches the service: its requests go to loopback, outside the service's budget, and
// it takes no lease. A change the stand-in refuses stops the apply before its first write.

import { apply } from '../ops/apply/apply.js';
import { fetchLive, type ParentsOf } from '../ops/live/fetch.js';
import { plan as buildPlan } from '../plan/steps/plan.js';
import { combine } from '../plan/steps/refuse.js';
import { KINDS } from '../kinds/index.js';
import type { Kind } from '../kinds/types.js';
import type { AccountConfig, DesiredState } from '../model/account.js';
import type { LiteralSource } from '../model/env-markers.js';
import type { JsonObject } from '../model/json.js';
import type { LiveState } from '../model/live.js';
import type { Plan, Rehearsal, RehearsedChange, Refusal } from '../model/plan.js';
import type { Run } from './run.js';

/** A stand-in of the service on loopback, seeded as asked (the emulator's RunningEmulator fits). */
export interface RehearsalService {
  url: string;
  keyId: string;
  secret: string;
  close(): Promise<void>;
}

/** What the stand-in is seeded with: its accounts, and per account the list bodies as the run read them. */
export interface RehearsalSeed {
  accounts: string[];
  seedFromLists: Record<string, Record<string, readonly unknown[]>>;
}

/** Starts a stand-in seeded with `seed` (the adapters pass the emulator's startEmulator). */
export type StartRehearsal = (seed: RehearsalSeed) => Promise<RehearsalService>;

/**
 * Changes (and requests) in flight at once in a rehearsal: started in plan order, each after its
 * dependencies, as apply starts them; the emulator is in this process on loopback, where more at
 * once costs less CPU per change than the service's default of 4 (about half, measured).
 */
export const REHEARSAL_CONCURRENCY = 16;

/** The most changes a rehearsal names as remaining in its result (the count says the rest). */
const REMAINING_SHOWN = 5;

export interface RehearsalInput {
  plan: Plan;
  desired: DesiredState;
  /** The live state the plan came from, read with `keepLists`. */
  live: LiveState;
  /** Values of the plan's `${env:...}` markers and literal secrets, as the apply would send them. */
  env: Record<string, string | undefined>;
  literals: LiteralSource;
  settings?: JsonObject;
  kindsOf?: (account: AccountConfig) => readonly Kind[];
  parentsOf?: ParentsOf;
}

/**
 * The plan with what its rehearsal found (`plan.rehearsal`), and, when the rehearsal refused a change
 * or could not end, a refusal (`rehearsal`, which --force does not override). A plan without changes
 * is returned as it is: there is nothing to rehearse, and no emulator is started.
 */
export async function rehearsed(run: Run, start: StartRehearsal, input: RehearsalInput): Promise<Plan> {
  const { plan } = input;
  if (plan.changes.length === 0) return plan;
  const rehearsal = await rehearse(run, start, input);
  const refusal = refusalOf(rehearsal);
  if (!refusal) return { ...plan, rehearsal };
  // The plan's own refusal keeps its code (it is the first thing to fix); --force, which would lift
  // it, lifts nothing of the rehearsal's (refuseUnlessForced reads plan.rehearsal).
  return { ...plan, rehearsal, refusal: combine(plan.refusal, refusal) };
}

async function rehearse(run: Run, start: StartRehearsal, input: RehearsalInput): Promise<Rehearsal> {
  const { plan, live } = input;
  // Only the accounts the plan changes: the others would plan as they did.
  const accounts = plan.accounts.filter((a) => plan.changes.some((c) => c.account === a.name));
  const names = accounts.map((a) => a.name);
  let service: RehearsalService | undefined;
  let client: ReturnType<Run['rehearsalClient']> | undefined;
  try {
    service = await start({ accounts: names, seedFromLists: Object.fromEntries(names.map((n) => [n, live.lists?.[n] ?? {}])) });
    client = run.rehearsalClient(service, REHEARSAL_CONCURRENCY);
    // The plan as it stands, refusal aside (a refused plan is rehearsed too: the reviewer learns both).
    const { refusal: _refusal, ...unrefused } = plan;
    const stop = run.stopSignal;
    const report = await apply(unrefused, client, { env: input.env, literals: input.literals, concurrency: REHEARSAL_CONCURRENCY, ...(stop ? { signal: stop } : {}) });
    const accepted = report.summary.done;
    if (report.stopped) return { outcome: 'failed', accepted, message: `the rehearsal stopped: ${report.stopped.message}` };
    const refused = report.results.filter((r) => r.status === 'failed').map((r): RehearsedChange => ({ key: r.key, action: r.action, message: r.reason ?? 'refused' }));
    if (refused.length > 0) return { outcome: 'refused', accepted, refused, ...(report.summary.skipped > 0 ? { notTried: report.summary.skipped } : {}) };
    // The result, read as the run read the live state, planned as the plan was (its targets; no rotation, no refusal).
    const after = await fetchLive(client, accounts, KINDS, {
      ...(input.settings ? { settings: input.settings } : {}),
      ...(input.kindsOf ? { kindsOf: input.kindsOf } : {}),
      ...(input.parentsOf ? { parentsOf: input.parentsOf } : {}),
    });
    const again = buildPlan(input.desired, after, { accounts: names, force: true, ...(plan.targets ? { targets: plan.targets } : {}), apiCalls: after.calls });
    if (!again.plan) {
      const first = again.diagnostics.find((d) => d.severity === 'error');
      return { outcome: 'unsettled', accepted, message: `the result could not be planned: ${first?.message ?? 'no plan'}` };
    }
    const left = again.plan.changes;
    if (left.length === 0) return { outcome: 'clean', accepted };
    return {
      outcome: 'unsettled',
      accepted,
      remaining: left.slice(0, REMAINING_SHOWN).map((c) => ({ key: c.key, action: c.action, ...(c.changed ? { message: `differs in ${c.changed.join(', ')}` } : {}) })),
      remainingCount: left.length,
    };
  } catch (err) {
    return { outcome: 'failed', accepted: 0, message: `the rehearsal could not run: ${err instanceof Error ? err.message : String(err)}` };
  } finally {
    await client?.close();
    await service?.close();
  }
}

/** A rehearsal that refused a change, or could not end, as the plan's refusal. */
function refusalOf(r: Rehearsal): Refusal | undefined {
  if (r.outcome === 'refused') {
    const refused = r.refused ?? [];
    const [first] = refused;
    return {
      code: 'rehearsal',
      message: `the rehearsal refused ${refused.length === 1 ? 'a change' : `${refused.length} changes`} (${first.action} ${first.key}: ${first.message}); nothing was sent to the service`,
      details: refused.map((c) => `${c.action} ${c.key}: ${c.message}`),
    };
  }
  if (r.outcome === 'failed') return { code: 'rehearsal', message: `${r.message ?? 'the rehearsal failed'}; nothing was sent to the service`, details: [] };
  return undefined;
}
