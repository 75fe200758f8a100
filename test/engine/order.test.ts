import { describe, expect, it } from 'vitest';
import { orderChanges, type PlannedChange } from '../../src/plan/core/order.js';
import { plan } from '../../src/plan/steps/plan.js';
import type { Change } from '../../src/model/plan.js';
import type { Kind } from '../../src/kinds/types.js';
import { Channel, desired, desiredState, FAKE_KINDS, live, liveState } from './plan-fakes.js';

const hook = (url: string) => ({ type: 'Webhook', data: { url } });

function keysOf(d: Parameters<typeof desiredState>[0], l: Parameters<typeof liveState>[0], prune: Record<string, boolean> = {}): string[] {
  const result = plan(desiredState(d, prune), liveState(l), { kinds: FAKE_KINDS, force: true });
  expect(result.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
  return result.plan!.changes.map((c) => `${c.action} ${c.key}`);
}

describe('order', () => {
  it('creates channels before the rules that use them, whatever the kind order', () => {
    // Rules first in the kind list: only the dependency can put the channel first.
    const kinds = [FAKE_KINDS[1], FAKE_KINDS[0], FAKE_KINDS[2], FAKE_KINDS[3]];
    const result = plan(
      desiredState([
        desired('Rule', 'a-rule', { channels: ['z-chan'], severity: [1] }),
        desired('Rule', 'b-rule', { channels: [], severity: [1] }),
        desired('Channel', 'z-chan', hook('u')),
      ]),
      liveState([]),
      { kinds },
    );
    expect(result.plan!.changes.map((c) => [c.key, c.dependsOn])).toEqual([
      ['prod/Rule/b-rule', []],
      ['prod/Channel/z-chan', []],
      ['prod/Rule/a-rule', ['prod/Channel/z-chan']],
    ]);
  });

  it('deletes (or updates away) a rule before deleting the channel it routed to', () => {
    const kinds = [FAKE_KINDS[0], FAKE_KINDS[1]];
    const result = plan(
      desiredState([desired('Rule', 'keep', { channels: [], severity: [1] })], { Channel: true, Rule: true }),
      liveState([
        live('Channel', 'old', 'C1', hook('u')),
        live('Rule', 'gone', 'R1', { channels: ['old'], severity: [1] }),
        live('Rule', 'keep', 'R2', { channels: ['old'], severity: [1] }),
      ]),
      { kinds },
    );
    expect(result.plan!.changes.map((c) => [`${c.action} ${c.key}`, c.dependsOn])).toEqual([
      ['delete prod/Rule/gone', []],
      ['update prod/Rule/keep', []],
      ['delete prod/Channel/old', ['prod/Rule/gone', 'prod/Rule/keep']],
    ]);
  });

  it('puts templates after their profile, and template deletes before a profile delete', () => {
    expect(
      keysOf(
        [desired('Profile', 'P', { extends: 'SVC_A' }), desired('Template', 'P.a', { subject: 'new' }, { parent: 'P' })],
        [live('Profile', 'P', 'P', { extends: 'SVC_A', note: 'x' }), live('Template', 'P.a', 'P.a', { subject: 'old' }, { parent: 'P' })],
      ),
    ).toEqual(['update prod/Profile/P', 'update prod/Template/P.a']);

    // A parent kind that does not own its children: the children are deleted first, on their own.
    const LooseProfile: Kind = {
      ...FAKE_KINDS[2],
      hierarchy: {
        ...FAKE_KINDS[2].hierarchy,
        ownsChildren: false,
      },
    };
    const result = plan(
      desiredState([], { Profile: true, Template: true }),
      liveState([live('Profile', 'P', 'P', { extends: 'SVC_A' }), live('Template', 'P.a', 'P.a', { subject: 's' }, { parent: 'P' })]),
      { kinds: [FAKE_KINDS[0], FAKE_KINDS[1], LooseProfile, FAKE_KINDS[3]] },
    );
    expect(result.plan!.changes.map((c) => `${c.action} ${c.key}`)).toEqual(['delete prod/Template/P.a', 'delete prod/Profile/P']);
    expect(result.plan!.changes[1].dependsOn).toEqual(['prod/Template/P.a']);
  });

  it('breaks ties by account order of the root, then kind order, then name', () => {
    expect(
      keysOf(
        [
          desired('Rule', 'b', { channels: [], severity: [1] }, { account: 'staging' }),
          desired('Channel', 'b', hook('u')),
          desired('Rule', 'a', { channels: [], severity: [1] }),
          desired('Channel', 'a', hook('u'), { account: 'staging' }),
          desired('Channel', 'c', hook('u')),
        ],
        [live('Channel', 'zz', 'C1', hook('u'))],
        { Channel: true },
      ),
    ).toEqual(['create prod/Channel/b', 'create prod/Channel/c', 'delete prod/Channel/zz', 'create prod/Rule/a', 'create staging/Channel/a', 'create staging/Rule/b']);
  });

  it('reports a cycle naming its members, not what merely waits on it', () => {
    const Node: Kind = { ...Channel, kind: 'Node', references: [{ kind: 'Node', pointer: '/next' }] };
    const change = (name: string, next: string): PlannedChange => ({
      change: {
        key: `prod/Node/${name}`,
        action: 'create',
        kind: 'Node',
        account: 'prod',
        name,
        after: { next },
        writeOnly: [],
        sensitive: [],
        refs: [{ kind: 'Node', name: next }],
        dependsOn: [],
        liveDigest: 'absent',
      } satisfies Change,
    });
    const result = orderChanges([change('a', 'b'), change('b', 'a'), change('c', 'a'), change('d', 'x')], [Node], ['prod']);
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({ severity: 'error', code: 'dependency-cycle' });
    expect(result.diagnostics[0].message).toContain('prod/Node/a, prod/Node/b');
    expect(result.diagnostics[0].message).not.toContain('prod/Node/c');
    expect(result.changes.map((c) => c.key)).toEqual(['prod/Node/d']);
  });

  it('a cycle of declared resources is a planning error', () => {
    const Node: Kind = {
      ...Channel,
      kind: 'Node',
      references: [{ kind: 'Node', pointer: '/next' }],
      secrets: {
        ...Channel.secrets,
        writeOnly: () => [],
        sensitive: () => [],
      },
    };
    const result = plan(desiredState([desired('Node', 'a', { next: 'b' }), desired('Node', 'b', { next: 'a' })]), liveState([]), { kinds: [Node] });
    expect(result.plan).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(['dependency-cycle']);
  });
});

describe('order: linked changes', () => {
  it('a move creates in the new account before it deletes in the old one, against the account order', () => {
    const spec = hook('u');
    const result = plan(desiredState([desired('Channel', 'c', spec, { account: 'staging' })], { Channel: true }), liveState([live('Channel', 'c', 'C1', spec)]), {
      kinds: FAKE_KINDS,
    });
    expect(result.plan!.changes.map((c) => [`${c.action} ${c.key}`, c.dependsOn])).toEqual([
      ['create staging/Channel/c', []],
      ['delete prod/Channel/c', ['staging/Channel/c']],
    ]);
  });
});

describe('Heap', () => {
  it('pops in the order a sort gives, whatever the order of pushes and pops', async () => {
    const { Heap } = await import('../../src/plan/core/order.js');
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    const compare = (a: [number, string], b: [number, string]) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
    const heap = new Heap<[number, string]>(compare);
    const shadow: [number, string][] = [];
    const popped: [number, string][] = [];
    const expected: [number, string][] = [];
    for (let i = 0; i < 2_000; i++) {
      if (rnd() % 3 !== 0 || heap.size === 0) {
        const item: [number, string] = [rnd() % 50, `k${i}`];
        heap.push(item);
        shadow.push(item);
      } else {
        shadow.sort(compare);
        expected.push(shadow.shift()!);
        popped.push(heap.pop()!);
      }
    }
    while (heap.size > 0) popped.push(heap.pop()!);
    expected.push(...shadow.sort(compare));
    expect(popped).toEqual(expected);
    expect(heap.pop()).toBeUndefined();
  });
});
