// The run layer decides how a run ends, once for both adapters: the problems that stop an apply before
// its first write (unset variables, a refusal, another apply's lease) and the exit code of each.

import { describe, expect, it } from 'vitest';
import type { ApplyReport, Plan } from '../../src/model/plan.js';
import { applyRun } from '../../src/run/apply-run.js';
import { RunError, type RunProblem } from '../../src/run/errors.js';
import { EXIT, exitCodeOf, problemVerdict, reportVerdict } from '../../src/run/outcome.js';
import type { Planned } from '../../src/run/plan-run.js';
import type { Run } from '../../src/run/run.js';

/** A planned run whose client fails the test if anything is sent. */
function planned(plan: Partial<Plan>, force?: true): { planned: Planned; sent: string[] } {
  const sent: string[] = [];
  const client = {
    request: async (req: { method: string; path: string }) => {
      sent.push(`${req.method} ${req.path}`);
      throw new Error('nothing may be sent');
    },
    budget: () => [],
    stats: () => ({ total: 0, byBucket: {} }),
  };
  const run = { client, now: () => 0, waitedSeconds: () => 0 } as unknown as Run;
  const full = { formatVersion: 2, accounts: [{ name: 'prod', orgAccess: false }], changes: [], summary: {}, unmanaged: [], diagnostics: [], apiCalls: { total: 0, byBucket: {} }, budget: [], ...plan } as unknown as Plan;
  return { planned: { plan: full, run, desired: {} as never, literals: () => undefined, ...(force ? { force } : {}) } as Planned, sent };
}

const create = { key: 'prod/AlertChannel/hook', action: 'create', account: 'prod', kind: 'AlertChannel', name: 'hook', after: { type: 'Webhook', data: { url: { $env: '${env:HOOK_URL}' } } }, dependsOn: [], reasons: [] };

async function problemOf(work: Promise<unknown>): Promise<RunProblem> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RunError);
  return (err as RunError).problem;
}

describe('how a run ends', () => {
  it('an apply whose plan reads unset variables stops before the first write (CLI and Action alike)', async () => {
    const { planned: p, sent } = planned({ changes: [create] as never });
    const problem = await problemOf(applyRun(p, { env: {} }));
    expect(problem).toEqual({ kind: 'unset-env', names: ['HOOK_URL'] });
    expect(sent).toEqual([]);
    expect(exitCodeOf(problemVerdict(problem))).toBe(EXIT.error);
  });

  it('a refused plan is the run problem `refused` (exit 3), unless the plan request forced it', async () => {
    const refusal = { code: 'safety-threshold' as const, message: 'too many deletions', details: [] };
    const { planned: p, sent } = planned({ refusal, changes: [create] as never });
    const problem = await problemOf(applyRun(p, { env: { HOOK_URL: 'https://h.example' } }));
    expect(problem).toMatchObject({ kind: 'refused', refusal, overridable: true });
    expect(sent).toEqual([]);
    expect(exitCodeOf(problemVerdict(problem))).toBe(EXIT.refused);
    // Forced where the plan was asked for: the apply goes ahead (and reaches the client).
    const forced = planned({ refusal, changes: [create] as never }, true);
    await applyRun(forced.planned, { env: { HOOK_URL: 'https://h.example' } }).catch(() => undefined);
    expect(forced.sent.length).toBeGreaterThan(0);
  });

  it('every problem has one verdict; each verdict one exit code', () => {
    const problems: RunProblem[] = [
      { kind: 'invalid', diagnostics: [] },
      { kind: 'client-config', message: 'x' },
      { kind: 'unknown-account', unknown: ['x'], declared: [] },
      { kind: 'scope', message: 'x' },
      { kind: 'no-plan', diagnostics: [] },
      { kind: 'unset-env', names: ['X'] },
      { kind: 'saved-foreign', names: [] },
      { kind: 'saved-literals', message: 'x', details: [] },
      { kind: 'saved-differs', differences: [] },
      { kind: 'lease-held', message: 'x' },
    ];
    expect(problems.map((p) => exitCodeOf(problemVerdict(p)))).toEqual([1, 1, 1, 1, 1, 1, 3, 3, 3, 4]);
  });

  it('an apply that ran: a lost lease is exit 4, a failure or an early stop exit 1, else 0', () => {
    const summary = (failed: number) => ({ done: 1, failed, skipped: 0 }) as ApplyReport['summary'];
    expect(reportVerdict({ summary: summary(0) })).toBe('ok');
    expect(reportVerdict({ summary: summary(1) })).toBe('error');
    expect(reportVerdict({ summary: summary(0), stopped: { cause: 'unreachable', message: 'x', notStarted: 1 } as never })).toBe('error');
    expect(reportVerdict({ summary: summary(0), stopped: { cause: 'lease-lost', message: 'x', notStarted: 1 } as never })).toBe('lease-held');
    expect(exitCodeOf('lease-held')).toBe(EXIT.leaseHeld);
  });
});
