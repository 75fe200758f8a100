// The retry budgets are reserved in the apply's pre-flight (issue 31): the client's, of a request safe
// to repeat, and with creates one create's whose outcome stays unknown. A maximum duration that covers
// the writes' wait but not those budgets is refused before anything is written, with a line that names
// them; one that covers all is not.

import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BucketBudget } from '../../src/api/types.js';
import { loadConfig } from '../../src/config/load.js';
import { manualClock, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { RETRY_BUDGET_MS, retryLookUps } from '../../src/ops/apply/apply-change.js';
import { preflight, preflightLine, renewalPeriodSeconds, retryReserve } from '../../src/ops/budget/preflight.js';
import { readyToApply } from '../../src/run/apply-run.js';
import { RunError } from '../../src/run/errors.js';
import { planRun } from '../../src/run/plan-run.js';
import type { RunSetup } from '../../src/run/run.js';
import { serviceEnv, webhookRepo } from '../e2e/harness.js';

let emu: RunningEmulator;
let repo: string;
const cleanup: Array<() => Promise<void>> = [];

beforeAll(async () => {
  emu = await startEmulator({ accounts: ['acct-a', 'acct-b'] });
  repo = await webhookRepo(['acct-a', 'acct-b'], 3, cleanup);
});
afterAll(async () => {
  await emu.close();
  while (cleanup.length > 0) await cleanup.pop()!();
});

describe('the retry budget in the pre-flight', () => {
  it('counts one create retry budget: 15 look-ups at most in 5 minutes, none for a run without creates', () => {
    expect(RETRY_BUDGET_MS).toBe(300_000);
    // Pauses 1, 2, 4, 8, 16 s then 30 s: look-ups at 0, 1, 3, 7, 15, 31, 61 ... 271 and 300 s.
    expect(retryLookUps()).toBe(15);
    expect(retryLookUps(31_000)).toBe(6);
    expect(retryLookUps(30_000)).toBe(6);
    const create = { account: 'a', kind: 'AlertChannel', name: 'x', action: 'create' } as never;
    const update = { account: 'a', kind: 'AlertChannel', name: 'y', action: 'update' } as never;
    expect(retryReserve([create, update])).toEqual({ seconds: 420, requestSeconds: 120, createSeconds: 300, lookUps: 15 });
    // Without creates, only the client's retry budget of a request safe to repeat (its own, when set).
    expect(retryReserve([update])).toEqual({ seconds: 120, requestSeconds: 120 });
    expect(retryReserve([update], 30_000)).toEqual({ seconds: 30, requestSeconds: 30 });
    const fits = preflight([{ buckets: ['POST AlertChannels'], requests: 2 }], [], 0);
    expect(preflightLine(fits, retryReserve([create]))).toBe(
      '2 requests in 1 rate-limit bucket; the budget allows them all now; up to 7 min more reserved for retries under faults: 2 min for a request safe to repeat, 5 min for a create whose outcome stays unknown (at most 15 look-ups and 14 repeats)',
    );
    expect(preflightLine(fits, retryReserve([update]))).toBe('2 requests in 1 rate-limit bucket; the budget allows them all now; up to 2 min more reserved for retries under faults: 2 min for a request safe to repeat');
    expect(preflightLine(fits, retryReserve([update], 0))).toBe('2 requests in 1 rate-limit bucket; the budget allows them all now');
  });

  it('refuses a --max-duration above the writes\u2019 wait but below it plus the retry budget, through the run layer; nothing written', async () => {
    const clock = manualClock(Date.UTC(2026, 2, 1));
    // The creates' bucket drained by an earlier run: 6 creates at 6 an hour wait for its refill.
    const drained: BucketBudget[] = [{ bucket: 'POST AlertChannels', limit: 6, remaining: 0, resetSeconds: 600, observedAt: clock.now() }];
    const lines: { line: string; seconds: number }[] = [];
    const setupFor = (maxDuration: number): RunSetup => ({
      env: serviceEnv(emu),
      flags: { maxDuration },
      memory: () => ({ recall: async () => drained, remember: async () => undefined }),
      adjust: (o) => ({ ...o, now: clock.now }),
      onPreflight: (p) => lines.push(p),
    });
    const desired = (await loadConfig(repo, { env: {} })).state!;
    const tryApply = async (maxDuration: number) => {
      lines.length = 0;
      const planned = await planRun(setupFor(maxDuration), { desired, dir: repo });
      try {
        expect(planned.plan.changes.filter((c) => c.action === 'create')).toHaveLength(6);
        return await readyToApply(planned, { lease: false }).then(() => undefined, (e: unknown) => e);
      } finally {
        await planned.run.close();
      }
    };
    // Unbounded in practice: the apply's pre-flight says how long the writes wait.
    expect(await tryApply(86_400)).toBeUndefined();
    const applyLine = lines.find((l) => l.line.startsWith('Pre-flight (apply)'));
    expect(applyLine?.line).toContain('up to 7 min more reserved for retries under faults');
    const writes = applyLine!.seconds;
    expect(writes).toBeGreaterThan(60);

    const err = await tryApply(writes + 360);
    expect(err).toBeInstanceOf(RunError);
    const problem = (err as RunError).problem;
    expect(problem.kind).toBe('too-long');
    if (problem.kind !== 'too-long') return;
    expect(problem.too.what).toBe('apply');
    expect(problem.too.seconds).toBe(writes + 420);
    expect(problem.too.line).toContain('5 min for a create whose outcome stays unknown');
    // Room for both: not refused (and its plan still creates all six: the refusal wrote nothing).
    expect(await tryApply(writes + 420)).toBeUndefined();
  });

  it("plan's own estimate carries the same reserve and the lease's requests (taking it, renewals while the writes wait, release)", async () => {
    const clock = manualClock(Date.UTC(2026, 2, 1));
    const drained: BucketBudget[] = [{ bucket: 'POST AlertChannels', limit: 6, remaining: 0, resetSeconds: 600, observedAt: clock.now() }];
    const desired = (await loadConfig(repo, { env: {} })).state!;
    const estimate = async (extra: { noLease?: boolean; lease?: boolean }, retryBudgetMs?: number) => {
      const planned = await planRun(
        {
          env: serviceEnv(emu),
          flags: {},
          memory: () => ({ recall: async () => drained, remember: async () => undefined }),
          adjust: (o) => ({ ...o, now: clock.now, ...(retryBudgetMs !== undefined ? { retryBudgetMs } : {}) }),
        },
        { desired, dir: repo, ...extra },
      );
      await planned.run.close();
      return planned.plan;
    };
    const plan = await estimate({});
    expect(plan.retryReserve).toEqual({ seconds: 420, requestSeconds: 120, createSeconds: 300, lookUps: 15 });
    // Six creates at six an hour wait about 50 min: a renewal each period, the take (3) and the release.
    const waits = Math.max(...plan.budget.map((b) => b.waitSeconds));
    expect(waits).toBeGreaterThan(2400);
    const renewals = Math.floor(preflight([{ buckets: ['POST AlertChannels'], requests: 6 }], drained, clock.now()).seconds / renewalPeriodSeconds());
    expect(renewals).toBeGreaterThan(30);
    expect(plan.leaseRequests).toBe(3 + 1 + 2 * renewals);
    expect(plan.budget.find((b) => b.bucket === 'GET AlertProfiles')?.needed).toBe(1 + renewals);
    expect((await estimate({ noLease: true })).leaseRequests).toBeUndefined();
    expect((await estimate({ noLease: true }, 30_000)).retryReserve).toEqual({ seconds: 330, requestSeconds: 30, createSeconds: 300, lookUps: 15 });
  });
});
