import { describe, expect, it } from 'vitest';
import { decide, unmatched } from '../../../src/plan/steps/decide.js';
import type { DesiredResource, LiveResource } from '../../../src/model/resource.js';
import { Channel, desired, live } from '../plan-fakes.js';
import { frozen, matchOf } from './helpers.js';

const hook = (url: string) => ({ type: 'Webhook', data: { url } });
const pager = desired('Channel', 'pd', { type: 'Pager', data: { apiKey: 'k', team: 't' } });
const pagerLive = live('Channel', 'pd', 'C2', { type: 'Pager', data: { team: 't' } });

describe('decide', () => {
  const cases: { name: string; desired: DesiredResource; live?: LiveResource; rotate?: boolean; action?: string; changed?: string[]; rotating?: boolean; reason?: string }[] = [
    { name: 'no live twin → create', desired: desired('Channel', 'ops', hook('a')), action: 'create' },
    { name: 'identical → nothing', desired: desired('Channel', 'ops', hook('a')), live: live('Channel', 'ops', 'C1', hook('a')) },
    { name: 'a changed member → update', desired: desired('Channel', 'ops', hook('b')), live: live('Channel', 'ops', 'C1', hook('a')), action: 'update', changed: ['data'] },
    {
      name: 'a member that cannot change in place → replace, saying which',
      desired: desired('Channel', 'ops', hook('a')),
      live: live('Channel', 'ops', 'C1', { type: 'Slack', data: { url: 'a' } }),
      action: 'replace',
      changed: ['type'],
      reason: 'type cannot be changed in place',
    },
    { name: 'an unseen write-only secret → nothing', desired: pager, live: pagerLive },
    { name: 'rotating it → update that pushes the secret', desired: pager, live: pagerLive, rotate: true, action: 'update', changed: ['data'], rotating: true },
    {
      name: 'rotating with a replace → replace (it sends every secret anyway)',
      desired: pager,
      live: live('Channel', 'pd', 'C2', { type: 'Slack', data: { team: 't' } }),
      rotate: true,
      action: 'replace',
      rotating: false,
      reason: 'type cannot be changed in place',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const m = matchOf(c.desired, c.live);
      const decision = decide(frozen([m]), frozen(new Set(c.rotate ? [m.key] : []))).get(m.key)!;
      expect(decision.action).toBe(c.action);
      expect(decision.rotate).toBe(c.rotating ?? false);
      if (c.changed) expect(decision.diff?.changed).toEqual(c.changed);
      expect(decision.reason).toBe(c.reason);
      expect(decision.live).toBe(c.live);
    });
  }

  it('keeps the order of the matches', () => {
    const ms = [matchOf(desired('Rule', 'b', {})), matchOf(desired('Channel', 'a', {}))];
    expect([...decide(ms, new Set()).keys()]).toEqual(['prod/Rule/b', 'prod/Channel/a']);
  });

  it('unmatched: a declared resource the service does not list is created', () => {
    const m = matchOf(desired('Channel', 'new', hook('a')));
    expect(unmatched(frozen(m))).toEqual({ ...m, action: 'create', rotate: false });
  });

  it('unmatched: nothing to do when the kind says the service does not list what is declared', () => {
    const m = matchOf(desired('Channel', 'off', { ...hook('a'), enabled: false }));
    const hidden = { ...m, kind: { ...m.kind, lifecycle: { unlisted: (d: DesiredResource) => d.spec.enabled === false } } };
    expect(unmatched(frozen(hidden))).toEqual({ ...hidden, rotate: false });
    expect(unmatched(frozen({ ...hidden, desired: desired('Channel', 'on', hook('a')) })).action).toBe('create');
  });

  it('the freeze helper bites: changing a frozen input throws', () => {
    expect(() => (frozen(new Set<string>()) as Set<string>).add('x')).toThrow(TypeError);
    expect(() => ((frozen({ a: 1 }) as { a: number }).a = 2)).toThrow(TypeError);
  });
});

describe('decide: renames', () => {
  it('a renamed twin with an equal spec → update (of the name alone)', () => {
    const m = { ...matchOf(desired('Channel', 'new', hook('a')), live('Channel', 'new', 'C1', hook('a'))), renamedFrom: 'old' };
    const [d] = [...decide(frozen([m]), new Set()).values()];
    expect([d.action, d.diff?.changed, d.renamedFrom]).toEqual(['update', [], 'old']);
  });

  it('a renamed twin whose spec changed too → one update', () => {
    const m = { ...matchOf(desired('Channel', 'new', hook('b')), live('Channel', 'new', 'C1', hook('a'))), renamedFrom: 'old' };
    const [d] = [...decide([m], new Set()).values()];
    expect([d.action, d.diff?.changed]).toEqual(['update', ['data']]);
  });

  it('a rename-only update never rotates, even when rotation is asked for it', () => {
    const m = { ...matchOf(desired('Channel', 'new', hook('a')), live('Channel', 'new', 'C1', hook('a'))), renamedFrom: 'old' };
    const [d] = [...decide(frozen([m]), frozen(new Set([m.key]))).values()];
    expect([d.action, d.diff?.changed, d.rotate]).toEqual(['update', [], false]);
  });
});

describe('decide: the reason of a replace', () => {
  it('names every member that cannot change in place, separated by commas', () => {
    const Fixed = { ...Channel, compare: { ...Channel.compare, replaceOn: ['data', 'type'] } };
    const m = { ...matchOf(desired('Channel', 'ops', hook('b')), live('Channel', 'ops', 'C1', { type: 'Slack', data: { url: 'a' } })), kind: Fixed };
    const [d] = [...decide(frozen([m]), new Set()).values()];
    expect([d.action, d.reasonCode, d.reason]).toEqual(['replace', 'replace-because-cannot-update', 'data, type cannot be changed in place']);
  });
});
