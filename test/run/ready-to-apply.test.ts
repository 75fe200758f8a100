// The write pre-flight counts what apply will send: with `record` (the Action), every account of the
// plan is leased and written, changes or not.

import { describe, expect, it } from 'vitest';
import type { RequestGroup } from '../../src/ops/budget/preflight.js';
import type { Plan } from '../../src/model/plan.js';
import { readyToApply } from '../../src/run/apply-run.js';
import type { Planned } from '../../src/run/plan-run.js';
import type { Run } from '../../src/run/run.js';

function planned(bounded: boolean): { planned: Planned; asked: RequestGroup[][] } {
  const asked: RequestGroup[][] = [];
  const run = { now: () => 0, bounded: () => bounded, preflight: async (groups: RequestGroup[]) => void asked.push(groups), client: { budget: () => [] } } as unknown as Run;
  const plan = { changes: [], accounts: [{ name: 'a0', orgAccess: false }, { name: 'a1', orgAccess: false }] } as unknown as Plan;
  return { planned: { plan, run } as unknown as Planned, asked };
}

const total = (groups: RequestGroup[], bucket: string) => groups.filter((g) => g.buckets.includes(bucket)).reduce((n, g) => n + g.requests, 0);

describe('the write pre-flight of an apply', () => {
  it('with nothing to change and no record, sends no estimate at all', async () => {
    const { planned: p, asked } = planned(true);
    await readyToApply(p, { lease: true });
    expect(asked).toEqual([]);
  });

  it('recording the commit counts the record of every account and the lease (taken already: its release), even with nothing to change', async () => {
    const { planned: p, asked } = planned(true);
    await readyToApply(p, { lease: true, record: true });
    expect(asked).toHaveLength(1);
    // The lease was taken before the read (its create counted then): nothing of it here but the release.
    expect(total(asked[0], 'POST AlertProfiles')).toBe(0);
    // Two accounts: the record's replace each, and the lease's release (one, whatever the accounts).
    expect(total(asked[0], 'PATCH AlertProfiles')).toBe(2 + 1);
    expect(total(asked[0], 'GET AlertProfiles')).toBe(2);
  });

  it('without a maximum duration there is nothing to check', async () => {
    const { planned: p, asked } = planned(false);
    await readyToApply(p, { lease: true, record: true });
    expect(asked).toEqual([]);
  });
});
