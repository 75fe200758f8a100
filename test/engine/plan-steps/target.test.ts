import { describe, expect, it } from 'vitest';
import { target } from '../../../src/engine/plan/steps/target.js';
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
