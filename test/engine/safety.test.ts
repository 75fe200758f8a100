import { describe, expect, it } from 'vitest';
import { plan } from '../../src/engine/plan.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import { desired, desiredState, FAKE_KINDS, live, liveState } from './plan-fakes.js';

const hook = (url: string) => ({ type: 'Webhook', data: { url } });

/** `total` live channels, all declared; the first `touched` differ (updates). */
function channels(total: number, touched: number): { d: DesiredResource[]; l: LiveResource[] } {
  const names = Array.from({ length: total }, (_, i) => `ch-${String(i).padStart(2, '0')}`);
  return {
    d: names.map((n, i) => desired('Channel', n, hook(i < touched ? 'new' : 'same'))),
    l: names.map((n, i) => live('Channel', n, `C${i}`, hook('same'))),
  };
}

describe('safety threshold', () => {
  const cases: { total: number; touched: number; refused: boolean }[] = [
    { total: 9, touched: 9, refused: false }, // below 10 resources: no threshold
    { total: 10, touched: 3, refused: false }, // exactly 30 %
    { total: 10, touched: 4, refused: true }, // 40 %
    { total: 20, touched: 6, refused: false },
    { total: 20, touched: 7, refused: true },
  ];
  for (const c of cases) {
    it(`${c.touched} of ${c.total} updated → ${c.refused ? 'refused' : 'allowed'}`, () => {
      const { d, l } = channels(c.total, c.touched);
      const p = plan(desiredState(d), liveState(l), { kinds: FAKE_KINDS }).plan!;
      expect(p.summary.update).toBe(c.touched);
      if (!c.refused) expect(p.refusal).toBeUndefined();
      else {
        expect(p.refusal?.code).toBe('safety-threshold');
        expect(p.refusal?.details).toEqual([`prod/Channel: ${c.touched} of ${c.total} live (${Math.round((c.touched / c.total) * 100)}%): 0 delete, ${c.touched} update, 0 replace`]);
      }
    });
  }

  it('counts deletes of pruned resources, per account', () => {
    const { l } = channels(10, 0);
    const p = plan(desiredState(l.slice(4).map((r) => desired('Channel', r.name, hook('same'))), { Channel: true }), liveState(l), { kinds: FAKE_KINDS }).plan!;
    expect(p.summary.delete).toBe(4);
    expect(p.refusal?.details[0]).toContain('4 delete');
    const staging = l.map((r) => ({ ...r, account: 'staging' }));
    const scoped = plan(desiredState([], { Channel: true }), liveState(staging), { kinds: FAKE_KINDS, accounts: ['prod'] }).plan!;
    expect(scoped.changes).toEqual([]);
    expect(scoped.refusal).toBeUndefined();
  });

  it('--force plans without a refusal', () => {
    const { d, l } = channels(10, 10);
    const p = plan(desiredState(d), liveState(l), { kinds: FAKE_KINDS, force: true }).plan!;
    expect(p.summary.update).toBe(10);
    expect(p.refusal).toBeUndefined();
  });
});

describe('resources still in use', () => {
  it('refuses deleting a channel that an unmanaged rule routes to, naming the rule', () => {
    const p = plan(
      desiredState([], { Channel: true }),
      liveState([live('Channel', 'ops', 'C1', hook('u')), live('Rule', 'legacy', 'R1', { channels: ['ops'], severity: [1] })]),
      { kinds: FAKE_KINDS },
    ).plan!;
    expect(p.changes.map((c) => c.key)).toEqual(['prod/Channel/ops']);
    expect(p.refusal?.code).toBe('in-use');
    expect(p.refusal?.details).toEqual(['prod/Channel/ops (delete) is still used by Rule legacy (not declared in this configuration)']);
  });

  it('refuses when a declared rule keeps routing to it without a change (reference-to-deleted is the error)', () => {
    const result = plan(
      desiredState([desired('Rule', 'r', { channels: ['ops'], severity: [1] })], { Channel: true }),
      liveState([live('Channel', 'ops', 'C1', hook('u')), live('Rule', 'r', 'R1', { channels: ['ops'], severity: [1] })]),
      { kinds: FAKE_KINDS },
    );
    expect(result.plan).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(['reference-to-deleted']);
  });

  it('allows it when the plan deletes the rule or updates the channel away', () => {
    const p = plan(
      desiredState([desired('Rule', 'kept', { channels: [], severity: [1] })], { Channel: true, Rule: true }),
      liveState([
        live('Channel', 'ops', 'C1', hook('u')),
        live('Rule', 'gone', 'R1', { channels: ['ops'], severity: [1] }),
        live('Rule', 'kept', 'R2', { channels: ['ops'], severity: [1] }),
      ]),
      { kinds: FAKE_KINDS },
    ).plan!;
    expect(p.summary).toMatchObject({ delete: 2, update: 1 });
    expect(p.refusal).toBeUndefined();
  });

  it('refuses replacing a channel a declared rule uses (apply deletes before it creates)', () => {
    const p = plan(
      desiredState([desired('Channel', 'ops', hook('u')), desired('Rule', 'r', { channels: ['ops'], severity: [1] })]),
      liveState([live('Channel', 'ops', 'C1', { type: 'Slack', data: { url: 'u' } }), live('Rule', 'r', 'R1', { channels: ['ops'], severity: [1] })]),
      { kinds: FAKE_KINDS },
    ).plan!;
    expect(p.refusal?.details).toEqual(['prod/Channel/ops (replace) is still used by Rule r']);
  });

  it('refuses replacing a channel an unmanaged rule uses; --force overrides', () => {
    const state = liveState([live('Channel', 'ops', 'C1', { type: 'Slack', data: { url: 'u' } }), live('Rule', 'legacy', 'R1', { channels: ['ops'], severity: [1] })]);
    const d = desiredState([desired('Channel', 'ops', hook('u'))]);
    expect(plan(d, state, { kinds: FAKE_KINDS }).plan!.refusal?.details).toEqual(['prod/Channel/ops (replace) is still used by Rule legacy (not declared in this configuration)']);
    expect(plan(d, state, { kinds: FAKE_KINDS, force: true }).plan!.refusal).toBeUndefined();
  });
});
