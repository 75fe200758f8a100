import { describe, expect, it } from 'vitest';
import { repoint } from '../../../src/plan/steps/repoint.js';
import type { Action } from '../../../src/model/plan.js';
import type { ResourceDiff } from '../../../src/plan/core/diff.js';
import { desired, Rule } from '../plan-fakes.js';
import { decisionOf, decisionsOf } from './helpers.js';

const diffWith = (changed: string[]): ResourceDiff => ({ changed, diff: [], before: {}, after: {}, writeOnly: [], sensitive: [], replace: false, withheld: [] });
const rule = desired('Rule', 'r', { channels: ['a', 'b'], severity: [1] });

describe('re-point', () => {
  const cases: {
    name: string;
    channels: Partial<Record<'a' | 'b', Action>>;
    rule: { action?: Action; changed?: string[]; reason?: string };
    expected: { action?: Action; changed?: string[]; reason?: string };
  }[] = [
    { name: 'targets kept → unchanged', channels: { a: 'update' }, rule: { changed: [] }, expected: { changed: [] } },
    {
      name: 'a target replaced → update of the referring member',
      channels: { a: 'replace' },
      rule: { changed: [] },
      expected: { action: 'update', changed: ['channels'], reason: 'refers to Channel a, which is replaced' },
    },
    {
      name: 'both replaced → one reason naming both',
      channels: { a: 'replace', b: 'replace' },
      rule: { changed: [] },
      expected: { action: 'update', changed: ['channels'], reason: 'refers to Channel a, b, which is replaced' },
    },
    {
      name: 'already updating another member → the member is added, sorted',
      channels: { b: 'replace' },
      rule: { action: 'update', changed: ['severity'] },
      expected: { action: 'update', changed: ['channels', 'severity'], reason: 'refers to Channel b, which is replaced' },
    },
    {
      name: 'the member already changed → listed once',
      channels: { a: 'replace' },
      rule: { action: 'update', changed: ['channels'] },
      expected: { action: 'update', changed: ['channels'], reason: 'refers to Channel a, which is replaced' },
    },
    { name: 'the referrer is created → unchanged', channels: { a: 'replace' }, rule: { action: 'create' }, expected: { action: 'create' } },
    {
      name: 'the referrer is replaced → keeps its own reason',
      channels: { a: 'replace' },
      rule: { action: 'replace', changed: ['x'], reason: 'x cannot be changed in place' },
      expected: { action: 'replace', changed: ['x'], reason: 'x cannot be changed in place' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const channels = Object.entries(c.channels).map(([name, action]) => decisionOf(desired('Channel', name, {}), { action }));
      const before = decisionOf(rule, {
        ...(c.rule.action ? { action: c.rule.action } : {}),
        ...(c.rule.changed ? { diff: diffWith(c.rule.changed) } : {}),
        ...(c.rule.reason ? { reason: c.rule.reason } : {}),
      });
      const after = repoint(decisionsOf([...channels, before])).get(before.key)!;
      expect(after.action).toBe(c.expected.action);
      expect(after.diff?.changed).toEqual(c.expected.changed);
      expect(after.reason).toBe(c.expected.reason);
      // The ops are what the diff found: apply sends the member with the new id.
      if (after.diff) expect(after.diff.diff).toEqual([]);
    });
  }

  it('leaves the decisions of the targets as they are', () => {
    const channel = decisionOf(desired('Channel', 'a', {}), { action: 'replace' });
    const out = repoint(decisionsOf([channel, decisionOf(rule, { diff: diffWith([]) })]));
    expect(out.get(channel.key)).toBe(channel);
  });

  it('a create or a replace that refers to a replaced resource stays what it is, even with a diff beside it', () => {
    const channel = decisionOf(desired('Channel', 'a', {}), { action: 'replace' });
    for (const action of ['create', 'replace'] as const) {
      const referrer = decisionOf(rule, { action, diff: diffWith(['severity']) });
      const after = repoint(decisionsOf([channel, referrer])).get(referrer.key)!;
      // It sends every member anyway: no update, no member added, no reason of its own.
      expect(after).toBe(referrer);
      expect([after.action, after.diff?.changed, after.reasonCode]).toEqual([action, ['severity'], undefined]);
    }
  });

  it('the first reason stays: two reference pointers naming replaced resources give the reason of the first', () => {
    const TwoRefs = { ...Rule, references: [...(Rule.references ?? []), { kind: 'Channel', pointer: '/backup' }] };
    const referrer = { ...decisionOf(desired('Rule', 'r', { channels: ['a'], backup: ['b'] }), { diff: diffWith([]) }), kind: TwoRefs };
    const channels = ['a', 'b'].map((n) => decisionOf(desired('Channel', n, {}), { action: 'replace' }));
    const after = repoint(decisionsOf([...channels, referrer])).get(referrer.key)!;
    expect(after.diff?.changed).toEqual(['backup', 'channels']);
    expect([after.reasonCode, after.reason]).toEqual(['update-because-reference-replaced', 'refers to Channel a, which is replaced']);
  });

  it('an update that already has a reason code keeps its reason', () => {
    const channel = decisionOf(desired('Channel', 'a', {}), { action: 'replace' });
    const referrer = decisionOf(rule, { action: 'update', diff: diffWith(['severity']), reasonCode: 'update-because-reference-replaced', reason: 'its own' });
    const after = repoint(decisionsOf([channel, referrer])).get(referrer.key)!;
    expect([after.action, after.diff?.changed, after.reasonCode, after.reason]).toEqual(['update', ['channels', 'severity'], 'update-because-reference-replaced', 'its own']);
  });
});

describe('re-point: copy on write', () => {
  it('returns the decisions as they are when nothing is replaced, and a map in the same order when a target is', () => {
    const a = decisionOf(desired('Channel', 'a', {}), { action: 'update' });
    const b = decisionOf(desired('Channel', 'b', {}), { action: 'update' });
    const r = { ...decisionOf(rule, {}), diff: diffWith([]) };
    const kept = decisionsOf([r, a, b]);
    expect(repoint(kept)).toBe(kept);
    const input = decisionsOf([r, { ...a, action: 'replace' }, b]);
    const out = repoint(input);
    expect([...out.keys()]).toEqual([r.key, a.key, b.key]);
    expect(out.get(r.key)!.action).toBe('update');
    expect(input.get(r.key)).toBe(r);
  });
});
