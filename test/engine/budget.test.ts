import { describe, expect, it } from 'vitest';
import type { BucketBudget } from '../../src/api/types.js';
import { budgetAt, budgetNeeds, waitSecondsFor, withBudget } from '../../src/ops/budget/budget.js';
import { plan } from '../../src/plan/steps/plan.js';
import { desired, desiredState, FAKE_KINDS, live, liveState } from './plan-fakes.js';

const hook = (url: string) => ({ type: 'Webhook', data: { url } });
const bucket = (name: string, remaining: number, limit = 120, resetSeconds = 30): BucketBudget => ({
  bucket: name,
  limit,
  remaining,
  resetSeconds,
  observedAt: 0,
});

describe('budget', () => {
  const d = desiredState(
    [
      desired('Channel', 'a', hook('1')),
      desired('Channel', 'b', hook('1')),
      desired('Channel', 'c', hook('new')),
      desired('Rule', 'r', { channels: ['a'], severity: [1] }),
      desired('Profile', 'P', { extends: 'SVC_X' }),
      desired('Template', 'P.t', { subject: 's' }, { parent: 'P' }),
    ],
    { Rule: true },
  );
  const l = liveState([live('Channel', 'c', 'C3', hook('old')), live('Channel', 'x', 'C9', { type: 'Slack', data: {} }), live('Rule', 'gone', 'R9', { channels: [], severity: [1] })]);

  it('counts the requests apply will send per bucket, sorted by bucket', () => {
    const p = withBudget(plan(d, l, { kinds: FAKE_KINDS }), FAKE_KINDS).plan!;
    expect(p.budget).toEqual([
      { bucket: 'DELETE AlertRules', needed: 1, waitSeconds: 0 },
      { bucket: 'PATCH AlertChannels', needed: 1, waitSeconds: 0 },
      { bucket: 'POST AlertChannels', needed: 2, waitSeconds: 0 },
      // The template travels in its new profile's request.
      { bucket: 'POST AlertProfiles', needed: 1, waitSeconds: 0 },
      { bucket: 'POST AlertRules', needed: 1, waitSeconds: 0 },
    ]);
  });

  it('estimates the wait when a bucket has too little left', () => {
    const p = withBudget(plan(d, l, { kinds: FAKE_KINDS }), FAKE_KINDS, [bucket('POST AlertChannels', 0, 120, 10), bucket('PATCH AlertChannels', 5)]).plan!;
    // Empty: the first request waits for Reset (10 s), the second a token interval (30 s) more.
    expect(p.budget.find((b) => b.bucket === 'POST AlertChannels')).toEqual({
      bucket: 'POST AlertChannels',
      needed: 2,
      limit: 120,
      remaining: 0,
      waitSeconds: 40,
      short: 2,
      refillSeconds: 30,
    });
    expect(p.budget.find((b) => b.bucket === 'PATCH AlertChannels')).toEqual({ bucket: 'PATCH AlertChannels', needed: 1, limit: 120, remaining: 5, waitSeconds: 0 });
  });

  it('takes a bucket not used yet to be full, at the size of the buckets seen', () => {
    const p = withBudget(plan(d, l, { kinds: FAKE_KINDS }), FAKE_KINDS, [bucket('GET AlertChannels', 100, 1)]).plan!;
    // 2 creates through a bucket of 1 per hour: one waits an hour; both if another run drained it.
    expect(p.budget.find((b) => b.bucket === 'POST AlertChannels')).toEqual({
      bucket: 'POST AlertChannels',
      needed: 2,
      limit: 1,
      remaining: 1,
      estimated: true,
      waitSeconds: 3600,
      short: 1,
      refillSeconds: 3600,
      drainedWaitSeconds: 7200,
    });
  });

  it('the first request short waits for Reset, every further one a token interval (limit per hour)', () => {
    expect(waitSecondsFor(3, bucket('x', 3))).toBe(0);
    expect(waitSecondsFor(4, bucket('x', 3, 120, 45))).toBe(45); // 1 short: Reset says 45
    expect(waitSecondsFor(13, bucket('x', 3, 120, 5))).toBe(275); // 10 short: 5 s, then 9 at 1 per 30 s
    expect(waitSecondsFor(4, bucket('x', 3, 120, 0))).toBe(30); // no Reset: one interval
    expect(waitSecondsFor(5, undefined)).toBe(0);
  });

  it('a drained bucket of 5 per hour: 7 requests take about 84 min, as the emulator refills it', () => {
    // Right after the bucket was drained the service says Reset 720: one request every 12 minutes.
    const drained = bucket('POST AlertChannels', 0, 5, 720);
    expect(waitSecondsFor(7, drained)).toBe(84 * 60);
  });

  it('brings a bucket seen earlier forward: it refills from Reset on, one token per interval, up to its limit', () => {
    const seen = { bucket: 'b', limit: 5, remaining: 0, resetSeconds: 720, observedAt: 1_000_000 };
    expect(budgetAt(seen, 1_000_000 + 600_000)).toMatchObject({ remaining: 0, resetSeconds: 120 });
    expect(budgetAt(seen, 1_000_000 + 720_000)).toMatchObject({ remaining: 1, resetSeconds: 720 });
    expect(budgetAt(seen, 1_000_000 + 30 * 60_000)).toMatchObject({ remaining: 2, resetSeconds: 360 });
    expect(budgetAt(seen, 1_000_000 + 10 * 3_600_000)).toMatchObject({ remaining: 5, resetSeconds: 0 });
    // Drained 30 minutes ago, 7 requests needed: 2 have come back, 5 wait at 1 per 12 min from the next token (6 min).
    expect(waitSecondsFor(7, budgetAt(seen, 1_000_000 + 30 * 60_000))).toBe(6 * 60 + 4 * 720);
  });

  it('a replace costs a delete and a create; a kind that cannot build a request is a warning', () => {
    const p = withBudget(plan(desiredState([desired('Channel', 'x', hook('u'))]), liveState([live('Channel', 'x', 'C1', { type: 'Slack', data: { url: 'u' } })]), {
      kinds: FAKE_KINDS,
    }), FAKE_KINDS).plan!;
    expect(p.budget.map((b) => [b.bucket, b.needed])).toEqual([
      ['DELETE AlertChannels', 1],
      ['POST AlertChannels', 1],
    ]);
    const broken = { ...FAKE_KINDS[0], deleteRequest: () => { throw new Error('no id'); } };
    const out = budgetNeeds(p.changes, [broken], p.accounts);
    expect(out.diagnostics.map((x) => x.code)).toEqual(['budget-estimate']);
    // Attached to a plan, the warning joins the plan's diagnostics (and the result's).
    const attached = withBudget({ plan: p, diagnostics: [] }, [broken]);
    expect(attached.plan!.diagnostics.map((x) => x.code)).toEqual(['budget-estimate']);
    expect(attached.diagnostics.map((x) => x.code)).toEqual(['budget-estimate']);
  });

  it('plan() itself counts no budget: the pure half never sees the client', () => {
    expect(plan(d, l, { kinds: FAKE_KINDS }).plan!.budget).toEqual([]);
  });
});
