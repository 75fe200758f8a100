import { describe, expect, it } from 'vitest';
import { indexLive } from '../../../src/plan/steps/live-index.js';
import { deletionReason, prune, sortUnmanaged } from '../../../src/plan/steps/prune.js';
import type { Decision } from '../../../src/plan/steps/shared.js';
import type { Action } from '../../../src/model/plan.js';
import type { LiveResource } from '../../../src/model/resource.js';
import { desired, FAKE_KINDS, live, Rule, Template } from '../plan-fakes.js';
import { decisionOf, decisionsOf, frozen } from './helpers.js';

function run(l: LiveResource[], opts: { declared?: Decision[]; prune?: Record<string, boolean> } = {}) {
  const declared = opts.declared ?? [];
  return prune({
    live: frozen(l),
    index: indexLive(l),
    declared: frozen(new Set(declared.map((d) => d.key))),
    decisions: decisionsOf(declared),
    prune: frozen(opts.prune ?? {}),
    kinds: FAKE_KINDS,
    accountOrder: ['prod', 'staging'],
  });
}

const profile = (action?: Action) => decisionOf(desired('Profile', 'P', {}), action ? { action } : {});
const tpl = (name: string) => live('Template', `P.${name}`, `P.${name}`, {}, { parent: 'P' });

describe('prune', () => {
  const cases: { name: string; live: LiveResource[]; declared?: Decision[]; prune?: Record<string, boolean>; deleted: [string, string][]; unmanaged: string[] }[] = [
    { name: 'prune off → unmanaged', live: [live('Rule', 'r', 'R1', {})], deleted: [], unmanaged: ['R1'] },
    { name: 'prune on → deleted', live: [live('Rule', 'r', 'R1', {})], prune: { Rule: true }, deleted: [['R1', 'not declared; prune is on for Rule']], unmanaged: [] },
    {
      name: 'prune is per kind',
      live: [live('Rule', 'r', 'R1', {}), live('Channel', 'c', 'C1', {})],
      prune: { Channel: true },
      deleted: [['C1', 'not declared; prune is on for Channel']],
      unmanaged: ['R1'],
    },
    {
      name: 'declared → neither',
      live: [live('Rule', 'r', 'R1', {})],
      declared: [decisionOf(desired('Rule', 'r', {}))],
      prune: { Rule: true },
      deleted: [],
      unmanaged: [],
    },
    { name: 'predefined by the service → neither', live: [live('Rule', 'r', 'R1', {}, { managedByService: true })], prune: { Rule: true }, deleted: [], unmanaged: [] },
    { name: 'unknown kind → neither', live: [live('Nope', 'n', 'N1', {})], prune: { Nope: true }, deleted: [], unmanaged: [] },
    {
      name: 'child its declared parent does not list → deleted, prune or not',
      live: [tpl('old')],
      declared: [profile()],
      deleted: [['P.old', 'not declared in Profile P']],
      unmanaged: [],
    },
    {
      name: 'child of a declared parent that is updated → deleted',
      live: [tpl('old')],
      declared: [profile('update')],
      deleted: [['P.old', 'not declared in Profile P']],
      unmanaged: [],
    },
    { name: 'child of a replaced owner → goes with it', live: [tpl('old')], declared: [profile('replace')], deleted: [], unmanaged: [] },
    {
      name: 'child of an undeclared owner → stays or goes with it',
      live: [live('Profile', 'P', 'P', {}), tpl('a')],
      prune: { Template: true },
      deleted: [],
      unmanaged: ['P'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = run(c.live, c);
      expect(r.diagnostics).toEqual([]);
      expect(r.deletions.map((x) => [x.live.id, x.reason])).toEqual(c.deleted);
      expect(r.unmanaged.map((u) => u.id)).toEqual(c.unmanaged);
    });
  }

  it('a name several undeclared live resources share, prune on → one error naming every id', () => {
    const r = run([live('Channel', 'dup', 'C2', {}), live('Channel', 'dup', 'C1', {}), live('Channel', 'dup', 'C3', {})], { prune: { Channel: true } });
    expect(r.deletions).toEqual([]);
    expect(r.diagnostics.map((d) => [d.severity, d.code])).toEqual([['error', 'ambiguous-live-name']]);
    expect(r.diagnostics[0].message).toBe('prune would delete 3 live Channel resources named dup in account prod (ids C1, C2, C3); names must be unique to be managed');
    expect(r.diagnostics[0].hint).toBe('rename or delete them in the service');
  });

  it('a resource of a child kind listed without a parent is pruned like any other, not kept as if an owner held it', () => {
    const orphan = live('Template', 'T', 'T1', {});
    expect(run([orphan], { prune: { Template: true } }).deletions.map((x) => [x.live.id, x.reason])).toEqual([['T1', 'not declared; prune is on for Template']]);
    expect(run([orphan]).unmanaged.map((u) => u.id)).toEqual(['T1']);
  });

  it('lists unmanaged resources by account order, kind order, name, then id', () => {
    const r = run([
      live('Rule', 'a', 'R1', {}, { account: 'staging' }),
      live('Rule', 'b', 'R2', {}),
      live('Channel', 'z', 'C9', {}),
      live('Rule', 'a', 'R4', {}),
      live('Rule', 'a', 'R3', {}),
    ]);
    expect(r.unmanaged.map((u) => `${u.account}/${u.kind}/${u.name}/${u.id}`)).toEqual([
      'prod/Channel/z/C9',
      'prod/Rule/a/R3',
      'prod/Rule/a/R4',
      'prod/Rule/b/R2',
      'staging/Rule/a/R1',
    ]);
  });
});

describe('deletionReason', () => {
  it.each([
    [live('Rule', 'r', 'R1', {}), { why: 'prune' } as const, 'not declared; prune is on for Rule'],
    [live('Template', 'P.t', 'P.t', {}, { parent: 'P' }), { why: 'not-in-parent', parentKind: 'Profile' } as const, 'not declared in Profile P'],
  ])('%# → %s', (l, cause, text) => {
    expect(deletionReason(l, l.kind === 'Rule' ? Rule : Template, cause)).toBe(text);
  });

  it('adds what delete means when the kind does not delete', () => {
    const l = live('Rule', 'r', 'R1', {});
    expect(
      deletionReason(
        l,
        {
          ...Rule,
          lifecycle: {
            ...Rule.lifecycle,
            deleteMeans: 'disabled: rules cannot be deleted',
          },
        },
        { why: 'prune' },
      ),
    ).toBe('not declared; prune is on for Rule; disabled: rules cannot be deleted');
  });
});

describe('prune with protect', () => {
  const base = (l: LiveResource[], protect: string[], pruneOn: Record<string, boolean> = { Rule: true, Channel: true }) =>
    prune({
      live: l,
      index: indexLive(l),
      declared: new Set(),
      decisions: decisionsOf([]),
      prune: pruneOn,
      kinds: FAKE_KINDS,
      accountOrder: ['prod', 'staging'],
      protect,
    });

  it('a protected resource is listed as unmanaged (protected), never deleted, prune on or off', () => {
    const l = [live('Rule', 'keep-1', 'R1', {}), live('Rule', 'other', 'R2', {}), live('Channel', 'keep-1', 'C1', {}, { account: 'staging' })];
    const on = base(l, ['prod/Rule/keep-*', 'staging/Channel/*']);
    expect(on.deletions.map((x) => x.live.id)).toEqual(['R2']);
    expect(on.unmanaged.map((u) => [u.id, u.protected])).toEqual([
      ['R1', true],
      ['C1', true],
    ]);
    const off = base(l, ['Rule/keep-1'], {});
    expect(off.unmanaged.map((u) => [u.id, u.protected])).toEqual([
      ['R1', true],
      ['R2', undefined],
      ['C1', undefined],
    ]);
  });

  it('a protected child its declared parent does not list stays', () => {
    const l = [tpl('old')];
    const r = prune({
      live: l,
      index: indexLive(l),
      declared: new Set(),
      decisions: decisionsOf([profile()]),
      prune: {},
      kinds: FAKE_KINDS,
      accountOrder: ['prod'],
      protect: ['Template/P.*'],
    });
    expect(r.deletions).toEqual([]);
    expect(r.unmanaged.map((u) => [u.id, u.protected])).toEqual([['P.old', true]]);
  });
});

describe('prune: who last changed it', () => {
  const lastChange = { by: 'second@example.com', at: '2026-11-22T10:00:00.000Z' };
  it('an unmanaged resource carries the last change of its record', () => {
    const r = run([{ ...live('Rule', 'r', 'R1', {}), lastChange }]);
    expect(r.unmanaged).toEqual([{ kind: 'Rule', account: 'prod', name: 'r', id: 'R1', lastChange }]);
  });
  it('a record that says nothing gives nothing', () => {
    expect(run([live('Rule', 'r', 'R1', {})]).unmanaged[0]).not.toHaveProperty('lastChange');
  });
});

describe('sortUnmanaged: names, then ids', () => {
  const u = (name: string, id: string) => ({ kind: 'Rule', account: 'prod', name, id });
  it.each([
    [
      [u('b', 'A1'), u('a', 'Z9')],
      ['a/Z9', 'b/A1'],
    ],
    [
      [u('a', 'Z9'), u('b', 'A1')],
      ['a/Z9', 'b/A1'],
    ],
    [
      [u('a', 'R2'), u('a', 'R1')],
      ['a/R1', 'a/R2'],
    ],
    [
      [u('a', 'R1'), u('a', 'R2')],
      ['a/R1', 'a/R2'],
    ],
    [
      [u('c', 'R1'), u('a', 'R3'), u('b', 'R2'), u('a', 'R0')],
      ['a/R0', 'a/R3', 'b/R2', 'c/R1'],
    ],
  ])('%# sorts by name before id, whatever the input order', (list, expected) => {
    expect(sortUnmanaged(frozen(list), ['prod'], FAKE_KINDS).map((x) => `${x.name}/${x.id}`)).toEqual(expected);
  });
});
