// Ordering rules checked one by one (mutation testing found each unchecked): the edges the planner
// draws, the tie-breaks of the sort and what a cycle names. order.test.ts covers the planner's view.
import { describe, expect, it } from 'vitest';
import { dependencyEdges, ownerNames, type PlannedChange, referencedNames, sortChanges } from '../../src/plan/core/order.js';
import { plan } from '../../src/plan/steps/plan.js';
import type { Change } from '../../src/model/plan.js';
import { desired, desiredState, FAKE_KINDS, live, liveState } from './plan-fakes.js';

const hook = (url: string) => ({ type: 'Webhook', data: { url } });

describe('order: the rules a kind order cannot hide', () => {
  it('parent before child: a template is never written before its profile, even with templates first in the kind order', () => {
    const templatesFirst = [FAKE_KINDS[0], FAKE_KINDS[1], FAKE_KINDS[3], FAKE_KINDS[2]];
    const result = plan(
      desiredState([desired('Profile', 'P', { extends: 'SVC_A' }), desired('Template', 'P.a', { subject: 'new' }, { parent: 'P' })]),
      liveState([live('Profile', 'P', 'P', { extends: 'SVC_A', note: 'x' }), live('Template', 'P.a', 'P.a', { subject: 'old' }, { parent: 'P' })]),
      { kinds: templatesFirst, force: true },
    );
    expect(result.plan!.changes.map((c) => [`${c.action} ${c.key}`, c.dependsOn])).toEqual([
      ['update prod/Profile/P', []],
      ['update prod/Template/P.a', ['prod/Profile/P']],
    ]);
  });

  it('a likely rename (same spec, new name) creates the new one before it deletes the old one, against name order', () => {
    const spec = hook('same');
    const result = plan(desiredState([desired('Channel', 'z-new', spec)], { Channel: true }), liveState([live('Channel', 'a-old', 'C1', spec)]), {
      kinds: FAKE_KINDS,
      force: true,
    });
    expect(result.plan!.changes.map((c) => [`${c.action} ${c.key}`, c.dependsOn])).toEqual([
      ['create prod/Channel/z-new', []],
      ['delete prod/Channel/a-old', ['prod/Channel/z-new']],
    ]);
  });
});

/** A change of the fake kinds, as the planner records it (only what ordering reads). */
function ch(action: Change['action'], kind: string, name: string, extra: Partial<Change> = {}, account = 'prod'): Change {
  return { key: `${account}/${kind}/${name}`, action, kind, account, name, writeOnly: [], sensitive: [], dependsOn: [], liveDigest: 'absent', ...extra } as Change;
}
const rulesTo = (channels: string[]) => ({ channels, severity: [1] });

describe('referencedNames', () => {
  it('a string or the strings of an array at the pointer, nothing else', () => {
    expect(referencedNames({ channels: ['a', 1, 'b', null] }, '/channels')).toEqual(['a', 'b']);
    expect(referencedNames({ next: 'x' }, '/next')).toEqual(['x']);
    expect(referencedNames({ next: 7 }, '/next')).toEqual([]);
    expect(referencedNames({}, '/channels')).toEqual([]);
  });
});

describe('dependencyEdges', () => {
  it('a rule that drops a channel runs before that channel is deleted or replaced, not before it is updated', () => {
    const rule: PlannedChange = {
      change: ch('update', 'Rule', 'r'),
      desired: desired('Rule', 'r', rulesTo([])),
      live: live('Rule', 'r', 'R1', rulesTo(['gone', 'swapped', 'edited', 'absent'])),
    };
    const items: PlannedChange[] = [rule, { change: ch('delete', 'Channel', 'gone') }, { change: ch('replace', 'Channel', 'swapped') }, { change: ch('update', 'Channel', 'edited') }];
    expect(dependencyEdges(items, FAKE_KINDS)).toEqual([
      ['prod/Rule/r', 'prod/Channel/gone'],
      ['prod/Rule/r', 'prod/Channel/swapped'],
    ]);
  });

  it('a deleted rule lets go of every channel it named, whatever a desired spec beside it says', () => {
    const rule: PlannedChange = { change: ch('delete', 'Rule', 'r'), desired: desired('Rule', 'r', rulesTo(['ops'])), live: live('Rule', 'r', 'R1', rulesTo(['ops'])) };
    expect(dependencyEdges([rule, { change: ch('replace', 'Channel', 'ops') }], FAKE_KINDS)).toEqual([['prod/Rule/r', 'prod/Channel/ops']]);
    // a change with no desired spec keeps none of its references either
    const blind: PlannedChange = { change: ch('update', 'Rule', 'r'), live: live('Rule', 'r', 'R1', rulesTo(['ops'])) };
    expect(dependencyEdges([blind, { change: ch('delete', 'Channel', 'ops') }], FAKE_KINDS)).toEqual([['prod/Rule/r', 'prod/Channel/ops']]);
  });

  it('what a write names is made first; a delete waits for nothing it names', () => {
    const refs = [{ kind: 'Channel', name: 'new' }];
    expect(dependencyEdges([{ change: ch('create', 'Rule', 'r', { refs }) }, { change: ch('create', 'Channel', 'new') }], FAKE_KINDS)).toEqual([
      ['prod/Channel/new', 'prod/Rule/r'],
    ]);
    expect(dependencyEdges([{ change: ch('delete', 'Rule', 'r', { refs }) }, { change: ch('create', 'Channel', 'new') }], FAKE_KINDS)).toEqual([]);
  });

  it('parents: written before their children, deleted after them; a child delete under an updated parent waits for nothing', () => {
    const t = (action: Change['action']) => ({ change: ch(action, 'Template', 'P.a', { parent: 'P' }) });
    const p = (action: Change['action']) => ({ change: ch(action, 'Profile', 'P') });
    expect(dependencyEdges([t('update'), p('replace')], FAKE_KINDS)).toEqual([['prod/Profile/P', 'prod/Template/P.a']]);
    expect(dependencyEdges([t('delete'), p('delete')], FAKE_KINDS)).toEqual([['prod/Template/P.a', 'prod/Profile/P']]);
    expect(dependencyEdges([t('delete'), p('update')], FAKE_KINDS)).toEqual([]);
    expect(dependencyEdges([t('update')], FAKE_KINDS)).toEqual([]);
  });

  it('links only a create (or a move) to the delete of the old place', () => {
    const gone = { change: ch('delete', 'Channel', 'old') };
    expect(dependencyEdges([{ change: ch('create', 'Channel', 'new', { sameSpecAs: 'prod/Channel/old' }) }, gone], FAKE_KINDS)).toEqual([['prod/Channel/new', 'prod/Channel/old']]);
    expect(dependencyEdges([{ change: ch('update', 'Channel', 'new', { sameSpecAs: 'prod/Channel/old' }) }, gone], FAKE_KINDS)).toEqual([]);
    // the other side of the link is not a delete, or not in the plan: nothing to wait for
    expect(dependencyEdges([{ change: ch('create', 'Channel', 'new', { movedFrom: 'prod/Channel/old' }) }, { change: ch('update', 'Channel', 'old') }], FAKE_KINDS)).toEqual([]);
    expect(dependencyEdges([{ change: ch('create', 'Channel', 'new', { movedFrom: 'staging/Channel/old' }) }], FAKE_KINDS)).toEqual([]);
  });

  it('a change of a kind this run does not know has no edges', () => {
    expect(dependencyEdges([{ change: ch('delete', 'Stranger', 's', { parent: 'P' }), live: live('Stranger', 's', 'S1', rulesTo(['ops'])) }, { change: ch('delete', 'Channel', 'ops') }], FAKE_KINDS)).toEqual([]);
  });
});

describe('sortChanges', () => {
  it('accounts and kinds it does not know go last, then by name, then by key', () => {
    const changes = [ch('create', 'Channel', 'b', {}, 'u2'), ch('create', 'Channel', 'b', {}, 'u1'), ch('create', 'Channel', 'a', {}, 'u2'), ch('create', 'Rule', 'z'), ch('create', 'Stranger', 'a')];
    expect(sortChanges(changes, [], FAKE_KINDS, ['prod']).changes.map((c) => c.key)).toEqual([
      'prod/Rule/z',
      'prod/Stranger/a',
      'u2/Channel/a',
      'u1/Channel/b',
      'u2/Channel/b',
    ]);
  });

  it('ignores an edge from a change to itself or to a change not in the plan', () => {
    const r = sortChanges([ch('create', 'Channel', 'a')], [['prod/Channel/a', 'prod/Channel/a'], ['prod/Channel/x', 'prod/Channel/a'], ['prod/Channel/a', 'prod/Channel/x']], FAKE_KINDS, ['prod']);
    expect(r.diagnostics).toEqual([]);
    expect(r.changes.map((c) => [c.key, c.dependsOn])).toEqual([['prod/Channel/a', []]]);
  });

  it('a cycle names exactly its members, sorted, even when one waits on a change outside it and a chain hangs off it', () => {
    const changes = ['c', 'b', 'a', 'e', 'x'].map((n) => ch('create', 'Channel', n));
    const k = (n: string) => `prod/Channel/${n}`;
    const edges: [string, string][] = [
      [k('a'), k('b')],
      [k('b'), k('a')],
      [k('x'), k('a')], // a also waits on x, which is ordered
      [k('a'), k('c')], // c waits on the cycle, e waits on c
      [k('c'), k('e')],
    ];
    const r = sortChanges(changes, edges, FAKE_KINDS, ['prod']);
    expect(r.changes.map((c) => c.key)).toEqual([k('x')]);
    expect(r.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'dependency-cycle',
        message: 'changes depend on each other in a cycle: prod/Channel/a, prod/Channel/b',
        hint: 'break the cycle by splitting the change into two plans',
      },
    ]);
  });
});

describe('member references name their owner', () => {
  it('the resource is what comes before the first dot; a name without one (or starting with one) is taken whole', () => {
    expect(ownerNames({ ref: ['profile.template', 'a.b.c', 'plain', '.x'] }, '/ref')).toEqual(['profile', 'a', 'plain', '.x']);
    expect(ownerNames({ ref: 'solo' }, '/ref')).toEqual(['solo']);
  });
});
