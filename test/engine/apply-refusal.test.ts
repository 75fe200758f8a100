// The engine enforces a plan's refusal: apply() of a refused plan sends nothing (no lease, no write)
// unless the caller forces it, and `prevent-destroy` is refused even then. The adapters only render
// the PlanRefusedError.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { apply } from '../../src/ops/apply/apply.js';
import { PlanRefusedError, refuseUnlessForced } from '../../src/ops/apply/apply-refusal.js';
import type { Plan, Refusal } from '../../src/model/plan.js';
import { NO_BUDGET_MEMORY } from '../../src/run/budget-memory.js';
import { planRun, type Planned } from '../../src/run/plan-run.js';
import { rawApi, serviceEnv, webhookRepo } from '../e2e/harness.js';

const cleanup: Array<() => Promise<void>> = [];
let dir: string;
/** Each test's own service: what one test applies, no other sees. */
let emu: RunningEmulator;

beforeAll(async () => {
  dir = await webhookRepo(['prod'], 2, cleanup);
});
beforeEach(async () => {
  emu = await startEmulator({ accounts: ['prod'] });
});
afterEach(async () => {
  await emu.close();
});
afterAll(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function fresh(): Promise<Planned> {
  const loaded = await loadConfig(dir, { env: {} });
  return planRun({ env: serviceEnv(emu), flags: {}, memory: () => NO_BUDGET_MEMORY }, { desired: loaded.state!, dir });
}

const OVER: Refusal = { code: 'safety-threshold', message: 'the plan deletes 3 of 4 channels (over 50 %)', details: [] };

async function channels(): Promise<number> {
  const res = await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' });
  return (res.body.data as unknown[]).length;
}

describe('apply of a refused plan', () => {
  it('writes nothing and sends no request, whatever the record option says', async () => {
    const planned = await fresh();
    try {
      expect(planned.plan.changes.length).toBe(2);
      const refused: Plan = { ...planned.plan, refusal: OVER };
      const before = emu.requestCount();
      const err = await apply(refused, planned.run.client, { env: {}, record: { commit: 'c0ffee' } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PlanRefusedError);
      expect((err as PlanRefusedError).refusal).toEqual(OVER);
      expect((err as PlanRefusedError).overridable).toBe(true);
      expect(emu.requestCount()).toBe(before);
      expect(await channels()).toBe(0);
    } finally {
      await planned.run.close();
    }
  });

  it('prevent-destroy is refused even with force; another refusal is applied with force', async () => {
    const planned = await fresh();
    try {
      const protectedPlan: Plan = { ...planned.plan, refusal: { code: 'prevent-destroy', message: 'prod/AlertChannel/hook-01 has preventDestroy', details: [] } };
      const err = await apply(protectedPlan, planned.run.client, { env: {}, force: true }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PlanRefusedError);
      expect((err as PlanRefusedError).overridable).toBe(false);
      expect(await channels()).toBe(0);

      const report = await apply({ ...planned.plan, refusal: OVER }, planned.run.client, { env: {}, force: true });
      expect(report.summary.done).toBe(2);
      expect(await channels()).toBe(2);
    } finally {
      await planned.run.close();
    }
  });

  it('refuseUnlessForced lets a plan without a refusal through, forced or not', () => {
    expect(() => refuseUnlessForced({}, false)).not.toThrow();
    expect(() => refuseUnlessForced({}, undefined)).not.toThrow();
    expect(() => refuseUnlessForced({ refusal: OVER }, undefined)).toThrow(PlanRefusedError);
    expect(() => refuseUnlessForced({ refusal: OVER }, true)).not.toThrow();
  });

  it('refuseUnlessForced: a failed rehearsal is beyond --force, whatever the code of the refusal it joined', () => {
    const rehearsal = { code: 'rehearsal' as const, message: 'the rehearsal refused a change', details: [] };
    const refusedRehearsal = { outcome: 'refused' as const, accepted: 0, refused: [{ key: 'prod/AlertChannel/x', action: 'create' as const, message: '400' }] };
    for (const plan of [{ refusal: rehearsal }, { refusal: OVER, rehearsal: refusedRehearsal }, { refusal: OVER, rehearsal: { outcome: 'failed' as const, accepted: 0, message: 'no port' } }]) {
      try {
        refuseUnlessForced(plan, true);
        expect.unreachable();
      } catch (err) {
        expect((err as PlanRefusedError).overridable).toBe(false);
      }
    }
    // A clean or unsettled rehearsal changes nothing of a refusal --force overrides.
    expect(() => refuseUnlessForced({ refusal: OVER, rehearsal: { outcome: 'clean', accepted: 1 } }, true)).not.toThrow();
    expect(() => refuseUnlessForced({ refusal: OVER, rehearsal: { outcome: 'unsettled', accepted: 1 } }, true)).not.toThrow();
  });
});
