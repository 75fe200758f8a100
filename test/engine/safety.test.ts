import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/steps/plan.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import { inUseRefusal, SAFETY_DEFAULTS, safetyRefusal, thresholdsFor } from '../../src/plan/core/safety.js';
import type { PlannedChange } from '../../src/plan/core/order.js';
import type { Change } from '../../src/model/plan.js';
import type { SafetySettings } from '../../src/model/account.js';
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

/** A plan of `d` against `l`, with `safety` in the root file. */
function planned(d: DesiredResource[], l: LiveResource[], safety?: SafetySettings, prune: Record<string, boolean> = {}, force = false) {
  const state = desiredState(d, prune);
  if (safety) state.root.safety = safety;
  return plan(state, liveState(l), { kinds: FAKE_KINDS, force }).plan!;
}

/** `n` live channels of `account`, named by `prefix`; `declared` of them declared as they are, the next `updated` changed. */
function world(account: string, n: number, declared: number, updated = 0, prefix = 'ch'): { d: DesiredResource[]; l: LiveResource[] } {
  const names = Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);
  return {
    d: names.slice(0, declared + updated).map((name, i) => ({ ...desired('Channel', name, hook(i < declared ? 'same' : 'new')), account })),
    l: names.map((name, i) => live('Channel', name, `${account}-${prefix}${i}`, hook('same'), { account })),
  };
}

describe('safety thresholds: updates per account and kind', () => {
  const cases: { total: number; touched: number; refused: boolean }[] = [
    { total: 9, touched: 9, refused: false }, // below minResources: no per-kind threshold
    { total: 10, touched: 3, refused: false }, // exactly 30 %: not more than
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
        expect(p.refusal?.message).toContain('use --force');
        expect(p.refusal?.details).toEqual([
          `prod/Channel: ${c.touched} of ${c.total} live (${Math.round((c.touched / c.total) * 100)}%) updated or replaced, more than 30% (0 delete, ${c.touched} update, 0 replace)`,
        ]);
      }
    });
  }

  it('counts replaces with updates: replacing every channel of a kind is refused', () => {
    const names = Array.from({ length: 10 }, (_, i) => `r-${i}`);
    const p = planned(
      names.map((n) => desired('Channel', n, hook('u'))),
      names.map((n, i) => live('Channel', n, `R${i}`, { type: 'Slack', data: { url: 'u' } })),
    );
    expect(p.summary.replace).toBe(10);
    expect(p.refusal?.details).toEqual(['prod/Channel: 10 of 10 live (100%) updated or replaced, more than 30% (0 delete, 0 update, 10 replace)']);
  });

  it('keeps accounts apart: 3 updates in each of two accounts of 10 are 30 % each, not 60 % of one pool', () => {
    const prod = world('prod', 10, 7, 3);
    const staging = world('staging', 10, 7, 3);
    const p = planned([...prod.d, ...staging.d], [...prod.l, ...staging.l]);
    expect(p.summary.update).toBe(6);
    expect(p.refusal).toBeUndefined();
    // and 4 in one of them is over, named by its account only
    const over = world('staging', 10, 6, 4);
    const q = planned([...prod.d, ...over.d], [...prod.l, ...over.l]);
    expect(q.refusal?.details).toEqual(['staging/Channel: 4 of 10 live (40%) updated or replaced, more than 30% (0 delete, 4 update, 0 replace)']);
  });

  it('keeps kinds apart: rules do not dilute the share of channels updated', () => {
    const { d, l } = channels(10, 4);
    const rules = Array.from({ length: 30 }, (_, i) => live('Rule', `rule-${i}`, `U${i}`, { channels: [], severity: [1] }));
    const p = planned([...d, ...rules.map((r) => desired('Rule', r.name, r.spec))], [...l, ...rules]);
    expect(p.refusal?.details).toEqual(['prod/Channel: 4 of 10 live (40%) updated or replaced, more than 30% (0 delete, 4 update, 0 replace)']);
  });

  it('does not count what the service manages (predefined resources)', () => {
    const { d, l } = channels(10, 4);
    const predefined = Array.from({ length: 20 }, (_, i) => live('Channel', `svc-${i}`, `S${i}`, hook('same'), { managedByService: true }));
    expect(planned(d, [...l, ...predefined]).refusal?.code).toBe('safety-threshold');
  });
});

describe('safety thresholds: deletes', () => {
  it('per kind from minResources on: 4 of 10 channels deleted (and 4 of 10 in the account)', () => {
    const { d, l } = world('prod', 10, 6);
    const p = planned(d, l, undefined, { Channel: true });
    expect(p.summary.delete).toBe(4);
    expect(p.refusal?.details).toEqual([
      'prod: 4 of 10 live (40%) of the account deleted, more than 30% (4 delete, 0 update, 0 replace)',
      'prod/Channel: 4 of 10 live (40%) deleted, more than 30% (4 delete, 0 update, 0 replace)',
    ]);
  });

  it('per account whatever the count: 2 of 3 deleted is over 30 %; 1 of 4 is not', () => {
    const three = world('prod', 3, 1);
    expect(planned(three.d, three.l, undefined, { Channel: true }).refusal?.details).toEqual([
      'prod: 2 of 3 live (67%) of the account deleted, more than 30% (2 delete, 0 update, 0 replace)',
    ]);
    const four = world('prod', 4, 3);
    const p = planned(four.d, four.l, undefined, { Channel: true });
    expect(p.summary.delete).toBe(1);
    expect(p.refusal).toBeUndefined();
  });

  it('an empty configuration with prune on is refused, whatever the count and the thresholds say; --force plans it', () => {
    for (const n of [1, 2, 25]) {
      const { l } = world('prod', n, 0);
      const p = planned([], l, { deletePercent: 100, minResources: 1000 }, { Channel: true });
      expect(p.summary.delete).toBe(n);
      expect(p.refusal?.details).toEqual([`prod: all ${n} live resources of the account deleted (${n} delete, 0 update, 0 replace)`]);
      expect(planned([], l, { deletePercent: 100 }, { Channel: true }, true).refusal).toBeUndefined();
    }
  });

  it('an account with nothing live refuses nothing', () => {
    const { d } = world('prod', 3, 3);
    expect(planned(d, []).refusal).toBeUndefined();
  });
});

describe('safety thresholds set in postureops.yaml', () => {
  it('the most specific setting wins: account and kind, then account, then kind, then the whole file', () => {
    const settings: SafetySettings = {
      updatePercent: 50,
      deletePercent: 40,
      minResources: 5,
      kinds: { Channel: { updatePercent: 20 } },
      accounts: { staging: { minResources: 2, deletePercent: 10, kinds: { Channel: { updatePercent: 90 } } } },
    };
    expect(thresholdsFor(settings, 'prod')).toEqual({ minResources: 5, updatePercent: 50, deletePercent: 40 });
    expect(thresholdsFor(settings, 'prod', 'Channel')).toEqual({ minResources: 5, updatePercent: 20, deletePercent: 40 });
    expect(thresholdsFor(settings, 'prod', 'Rule')).toEqual({ minResources: 5, updatePercent: 50, deletePercent: 40 });
    expect(thresholdsFor(settings, 'staging')).toEqual({ minResources: 2, updatePercent: 50, deletePercent: 10 });
    expect(thresholdsFor(settings, 'staging', 'Channel')).toEqual({ minResources: 2, updatePercent: 90, deletePercent: 10 });
    expect(thresholdsFor(undefined, 'prod', 'Channel')).toEqual(SAFETY_DEFAULTS);
    expect(SAFETY_DEFAULTS).toEqual({ minResources: 10, updatePercent: 30, deletePercent: 30 });
  });

  it('a stricter kind threshold refuses what the default allows, a looser account one allows what it refuses', () => {
    const { d, l } = channels(10, 2);
    expect(planned(d, l).refusal).toBeUndefined();
    expect(planned(d, l, { kinds: { Channel: { updatePercent: 10 } } }).refusal?.details).toEqual([
      'prod/Channel: 2 of 10 live (20%) updated or replaced, more than 10% (0 delete, 2 update, 0 replace)',
    ]);
    const many = channels(10, 8);
    expect(planned(many.d, many.l, { accounts: { prod: { updatePercent: 80 } } }).refusal).toBeUndefined();
    expect(planned(many.d, many.l, { accounts: { staging: { updatePercent: 80 } } }).refusal?.code).toBe('safety-threshold');
    // minResources lowered: 2 of 4 updated is over 30 %
    const small = channels(4, 2);
    expect(planned(small.d, small.l).refusal).toBeUndefined();
    expect(planned(small.d, small.l, { minResources: 4 }).refusal?.code).toBe('safety-threshold');
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
    // (deletePercent 100: this is about the in-use check alone)
    const p = planned([], [live('Channel', 'ops', 'C1', hook('u')), live('Rule', 'legacy', 'R1', { channels: ['ops'], severity: [1] })], { deletePercent: 100 }, { Channel: true });
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
    const p = planned(
      [desired('Rule', 'kept', { channels: [], severity: [1] })],
      [
        live('Channel', 'ops', 'C1', hook('u')),
        live('Rule', 'gone', 'R1', { channels: ['ops'], severity: [1] }),
        live('Rule', 'kept', 'R2', { channels: ['ops'], severity: [1] }),
      ],
      { deletePercent: 100 },
      { Channel: true, Rule: true },
    );
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

/** A change as the planner records it; only what the safety checks read. */
function change(action: Change['action'], account: string, kind: string, name: string): Change {
  return { key: `${account}/${kind}/${name}`, action, kind, account, name, writeOnly: [], sensitive: [], dependsOn: [], liveDigest: 'absent' } as Change;
}

/** `n` live resources of one kind and account, and a change of `action` for the first `changed` of them. */
function lot(account: string, kind: string, n: number, changed: number, action: Change['action']): { l: LiveResource[]; c: Change[] } {
  const l = Array.from({ length: n }, (_, i) => live(kind, `${kind}-${i}`, `${account}-${kind}-${i}`, {}, { account }));
  return { l, c: l.slice(0, changed).map((r) => change(action, account, kind, r.name)) };
}

describe('safety thresholds: edges', () => {
  it('exactly deletePercent deleted is allowed, per kind and per account ("more than", not "as many as")', () => {
    const { d, l } = world('prod', 10, 7);
    const p = planned(d, l, undefined, { Channel: true });
    expect(p.summary.delete).toBe(3);
    expect(p.refusal).toBeUndefined();
  });

  it('a kind or account with nothing live that counts is never refused for its share, even with minResources 0', () => {
    // Updates of what the service manages: nothing counted live, so no share to exceed (and no 1 of 0).
    const managed = [live('Profile', 'SVC_A', 'SVC_A', {}, { managedByService: true }), live('Profile', 'SVC_B', 'SVC_B', {}, { managedByService: true })];
    const changes = managed.map((r) => change('update', 'prod', 'Profile', r.name));
    expect(safetyRefusal(changes, managed, ['prod'], FAKE_KINDS, { minResources: 0 })).toBeUndefined();
    expect(safetyRefusal([change('delete', 'prod', 'Profile', 'SVC_A')], managed, ['prod'], FAKE_KINDS, { minResources: 0 })).toBeUndefined();
  });

  it('lists the thresholds passed by account order, then the account before its kinds, then kind order; the message counts them', () => {
    // Listed against that order: staging before prod, rules before channels.
    const sr = lot('staging', 'Rule', 10, 10, 'update');
    const sc = lot('staging', 'Channel', 10, 10, 'update');
    const pr = lot('prod', 'Rule', 10, 10, 'update');
    const pc = lot('prod', 'Channel', 10, 10, 'delete');
    const refusal = safetyRefusal([...sr.c, ...sc.c, ...pr.c, ...pc.c], [...sr.l, ...sc.l, ...pr.l, ...pc.l], ['prod', 'staging'], FAKE_KINDS);
    expect(refusal?.message).toBe(
      'the plan changes more of what exists than the safety thresholds allow (5 thresholds); review it and use --force to apply',
    );
    expect(refusal?.details.map((line) => line.split(':')[0])).toEqual(['prod', 'prod/Channel', 'prod/Rule', 'staging/Channel', 'staging/Rule']);
    const one = lot('prod', 'Channel', 10, 4, 'update');
    expect(safetyRefusal(one.c, one.l, ['prod'], FAKE_KINDS)?.message).toBe(
      'the plan changes more of what exists than the safety thresholds allow (one threshold); review it and use --force to apply',
    );
  });
});

describe('resources still in use: edges', () => {
  const ruleTo = (name: string, channels: string[], account = 'prod') => live('Rule', name, `${account}-R-${name}`, { channels, severity: [1] }, { account });
  const deleting = (account: string, kind: string, name: string): PlannedChange => ({ change: change('delete', account, kind, name), live: live(kind, name, `${account}-${name}`, {}, { account }) });

  it('a rule in another account that routes to a channel of the same name does not hold it (in use is per account)', () => {
    const refusal = inUseRefusal([deleting('prod', 'Channel', 'ops')], [ruleTo('r', ['ops'], 'staging')], FAKE_KINDS, new Set());
    expect(refusal).toBeUndefined();
    // the same rule in the deleting account does
    expect(inUseRefusal([deleting('prod', 'Channel', 'ops')], [ruleTo('r', ['ops'])], FAKE_KINDS, new Set())?.details).toEqual([
      'prod/Channel/ops (delete) is still used by Rule r (not declared in this configuration)',
    ]);
  });

  it('a reference to another kind of the same name does not hold a resource', () => {
    expect(inUseRefusal([deleting('prod', 'Profile', 'ops')], [ruleTo('r', ['ops'])], FAKE_KINDS, new Set())).toBeUndefined();
  });

  it('a live resource of a kind this run does not know holds nothing (and does not stop the check)', () => {
    const stranger = live('Stranger', 's', 'S1', { channels: ['ops'] });
    expect(inUseRefusal([deleting('prod', 'Channel', 'ops')], [stranger], FAKE_KINDS, new Set())).toBeUndefined();
  });

  it('names every blocked resource once, sorted, and says "a resource" or "resources"', () => {
    const items = [deleting('prod', 'Channel', 'zeta'), deleting('prod', 'Channel', 'alpha')];
    const refusal = inUseRefusal(items, [ruleTo('r', ['zeta', 'alpha', 'zeta'])], FAKE_KINDS, new Set(['prod/Rule/r']));
    expect(refusal?.message).toBe('the plan removes resources that other resources still reference; change or delete those first, or use --force');
    expect(refusal?.details).toEqual(['prod/Channel/alpha (delete) is still used by Rule r', 'prod/Channel/zeta (delete) is still used by Rule r']);
    const single = inUseRefusal([items[0]], [ruleTo('r', ['zeta'])], FAKE_KINDS, new Set(['prod/Rule/r']));
    expect(single?.message).toBe('the plan removes a resource that other resources still reference; change or delete those first, or use --force');
  });

  it('a referrer changed without a desired spec still refers (only a delete or a new spec lets go)', () => {
    const r = ruleTo('r', ['ops']);
    const updatedBlind: PlannedChange = { change: change('update', 'prod', 'Rule', 'r'), live: r };
    expect(inUseRefusal([deleting('prod', 'Channel', 'ops'), updatedBlind], [r], FAKE_KINDS, new Set(['prod/Rule/r']))?.details).toEqual([
      'prod/Channel/ops (delete) is still used by Rule r',
    ]);
    const repointed: PlannedChange = { ...updatedBlind, desired: desired('Rule', 'r', { channels: ['other'], severity: [1] }) };
    expect(inUseRefusal([deleting('prod', 'Channel', 'ops'), repointed], [r], FAKE_KINDS, new Set(['prod/Rule/r']))).toBeUndefined();
  });
});
