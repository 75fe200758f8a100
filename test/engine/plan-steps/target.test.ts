import { describe, expect, it } from 'vitest';
import { target } from '../../../src/plan/steps/target.js';
import type { Change } from '../../../src/model/plan.js';
import { FAKE_KINDS } from '../plan-fakes.js';
import { frozen } from './helpers.js';

const change = (key: string, dependsOn: string[] = [], parent?: string): Change => {
  const [account, kind, name] = key.split('/');
  return { key, action: 'create', kind, account, name, writeOnly: [], sensitive: [], dependsOn, liveDigest: 'absent', ...(parent ? { parent } : {}) };
};

const changes = frozen([
  change('prod/Channel/a'),
  change('prod/Channel/b'),
  change('prod/Rule/r', ['prod/Channel/a']),
  change('prod/Rule/s', ['prod/Rule/r']),
  change('staging/Rule/r'),
  change('prod/Profile/P'),
  change('prod/Template/P.t', ['prod/Profile/P'], 'P'),
]);
const unmanaged = frozen([
  { kind: 'Rule', account: 'prod', name: 'r2', id: 'R2' },
  { kind: 'Channel', account: 'prod', name: 'z', id: 'Z' },
]);

describe('target', () => {
  it('no selectors: the whole plan, not partial', () => {
    const t = target(changes, unmanaged, [], FAKE_KINDS);
    expect(t.changes).toBe(changes);
    expect(t.targets).toBeUndefined();
  });

  it.each([
    [['prod/Rule/r'], ['prod/Channel/a', 'prod/Rule/r']],
    [['prod/Rule/s'], ['prod/Channel/a', 'prod/Rule/r', 'prod/Rule/s']],
    [['Rule/r'], ['prod/Channel/a', 'prod/Rule/r', 'staging/Rule/r']],
    [['prod/Channel/*'], ['prod/Channel/a', 'prod/Channel/b']],
    [['Profile/P'], ['prod/Profile/P', 'prod/Template/P.t']],
    [['prod/Channel/b', 'staging/*/*'], ['prod/Channel/b', 'staging/Rule/r']],
  ])('%j keeps %j in plan order', (selectors, keys) => {
    const t = target(changes, unmanaged, selectors, FAKE_KINDS);
    expect(t.changes.map((c) => c.key)).toEqual(keys);
    expect(t.targets).toEqual(selectors);
    expect(t.diagnostics).toEqual([]);
  });

  it('unmanaged resources only when selected; a selector that names nothing is an error, one that names a resource without a change a warning', () => {
    const upToDate = [{ account: 'prod', kind: 'Channel', name: 'quiet' }];
    const t = target(changes, unmanaged, ['Rule/r2', 'Nope/x', 'Channel/quiet', 'staging/Channel/quiet'], FAKE_KINDS, upToDate);
    expect(t.changes).toEqual([]);
    expect(t.unmanaged.map((u) => u.id)).toEqual(['R2']);
    expect(t.diagnostics.map((d) => [d.severity, d.code, d.message])).toEqual([
      ['error', 'target-no-match', '--target Nope/x names no declared or live resource of the accounts planned'],
      ['warning', 'target-no-change', '--target Channel/quiet selects no change of this plan: what it names is up to date'],
      ['error', 'target-no-match', '--target staging/Channel/quiet names no declared or live resource of the accounts planned'],
    ]);
  });
});

describe('target: through a parent, and what it leaves out', () => {
  it('a child is targeted through its parent only when it has one and its kind has a parent kind', () => {
    const orphan = frozen([change('prod/Template/T'), change('prod/Channel/c', [], 'P')]);
    const t = target(orphan, [], ['Profile/*', '*/P'], FAKE_KINDS);
    expect(t.changes).toEqual([]);
    expect(t.diagnostics.map((d) => d.code)).toEqual(['target-no-match', 'target-no-match']);
  });

  it('a dependency that is no change of this plan is left out, and a change of a kind not registered is targeted by its own name', () => {
    const t = target(frozen([change('prod/Rule/r', ['prod/Channel/gone']), change('prod/Other/o')]), [], ['Rule/r', 'Other/o'], FAKE_KINDS);
    expect(t.changes.map((c) => c.key)).toEqual(['prod/Rule/r', 'prod/Other/o']);
    expect([...t.keys]).toEqual(['prod/Rule/r', 'prod/Other/o']);
  });

  it('with nothing to plan and no resource named, even a selector of everything names nothing', () => {
    expect(target([], [], ['*/*'], FAKE_KINDS).diagnostics.map((d) => d.code)).toEqual(['target-no-match']);
  });

  it('a selector that names nothing says how selectors look', () => {
    const [d] = target(changes, [], ['Nope/x'], FAKE_KINDS).diagnostics;
    expect(d.hint).toBe('selectors look like [account/]Kind/name; * matches within a part; check the spelling and --account');
  });
});
