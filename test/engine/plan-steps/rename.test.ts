import { describe, expect, it } from 'vitest';
import { rename, renameLive } from '../../../src/plan/steps/rename.js';
import type { Kind } from '../../../src/kinds/types.js';
import type { DesiredResource } from '../../../src/model/resource.js';
import { Channel, desired, FAKE_KINDS, live, Profile, Rule, Template } from '../plan-fakes.js';
import { frozen } from './helpers.js';

const RenamableChannel: Kind = {
  ...Channel,
  rename: {
    ...Channel.rename,
    inPlace: true,
  },
};
const KINDS: readonly Kind[] = [
  RenamableChannel,
  Rule,
  {
    ...Profile,
    rename: {
      inPlace: false,
      refusal: 'its name is its id',
    },
  },
  Template,
];

const named = (name: string, previousNames: string[], extra: Partial<DesiredResource> = {}): DesiredResource => ({
  ...desired('Channel', name, { type: 'Slack' }),
  previousNames,
  ...extra,
});

describe('rename', () => {
  it('takes over the live resource with an old name: same id, references and nothing else follow', () => {
    const l = frozen([live('Channel', 'old', 'C1', { type: 'Slack' }), live('Rule', 'r', 'R1', { channels: ['old', 'other'] }), live('Channel', 'other', 'C2', {})]);
    const r = rename(frozen([named('new', ['older', 'old'])]), l, KINDS);
    expect(r.diagnostics).toEqual([]);
    expect(r.live.map((x) => [x.id, x.name])).toEqual([
      ['C1', 'new'],
      ['R1', 'r'],
      ['C2', 'other'],
    ]);
    expect(r.live[1].spec.channels).toEqual(['new', 'other']);
    expect([...r.renamedFrom]).toEqual([['prod/Channel/new', 'old']]);
  });

  it('no rename when the new name is live already, when nothing has an old name, or in another account', () => {
    const l = [live('Channel', 'old', 'C1', {}), live('Channel', 'new', 'C2', {}), live('Channel', 'gone', 'C3', {}, { account: 'staging' })];
    const r = rename([named('new', ['old']), named('x', ['nothing']), named('y', ['gone'])], l, KINDS);
    expect(r.renamedFrom.size).toBe(0);
    expect(r.live).toEqual(l);
  });

  it('an old name that a document still declares is not taken over', () => {
    const r = rename([named('new', ['old']), desired('Channel', 'old', {})], [live('Channel', 'old', 'C1', {})], KINDS);
    expect(r.renamedFrom.size).toBe(0);
  });

  it('two live resources with old names → error naming both, no rename', () => {
    const r = rename([named('new', ['a', 'b'])], [live('Channel', 'a', 'C1', {}), live('Channel', 'b', 'C2', {})], KINDS);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['ambiguous-rename']);
    expect(r.diagnostics[0].message).toContain('a C1, b C2');
    expect(r.renamedFrom.size).toBe(0);
  });

  it('one old resource claimed by two documents → error for the second', () => {
    const r = rename([named('n1', ['old']), named('n2', ['old'])], [live('Channel', 'old', 'C1', {})], KINDS);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['ambiguous-rename']);
    expect([...r.renamedFrom.keys()]).toEqual(['prod/Channel/n1']);
  });

  it('a kind that cannot rename says why', () => {
    const d = { ...desired('Profile', 'P2', {}), previousNames: ['P'] };
    const r = rename([d], [live('Profile', 'P', 'P', {})], KINDS);
    expect(r.diagnostics.map((x) => [x.severity, x.code])).toEqual([['error', 'rename-unsupported']]);
    expect(r.diagnostics[0].message).toContain('its name is its id');
  });

  it('renameLive moves children to the new parent name', () => {
    const out = renameLive(
      [live('Profile', 'P', 'P', {}), live('Template', 'P.t', 'P.t', {}, { parent: 'P' })],
      [{ account: 'prod', kind: 'Profile', from: 'P', to: 'Q' }],
      FAKE_KINDS,
    );
    expect(out.map((x) => [x.name, x.parent])).toEqual([
      ['Q', undefined],
      ['P.t', 'Q'],
    ]);
  });
});

describe('rename: what it skips and what it says', () => {
  it('a document with an empty previousNames, or of a kind not registered, asks for nothing', () => {
    const r = rename(
      [
        { ...desired('Profile', 'P2', {}), previousNames: [] },
        { ...desired('Nope', 'n', {}), previousNames: ['m'] },
      ],
      [live('Nope', 'm', 'N1', {})],
      KINDS,
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.renamedFrom.size).toBe(0);
  });

  it('a kind that cannot rename and gives no reason gets the general one, at the previousNames field', () => {
    const r = rename([{ ...desired('Rule', 'r2', {}, { line: 4 }), previousNames: ['r'] }], [live('Rule', 'r', 'R1', {})], KINDS);
    expect(r.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'rename-unsupported',
        message: 'Rule r2 gives previousNames, but the service cannot rename a Rule in place',
        file: 'config/resources.yaml',
        line: 4,
        column: 1,
        field: '/previousNames',
      },
    ]);
  });

  it('several candidates are listed sorted, with what to do; an old name claimed twice names both documents', () => {
    const two = rename([named('new', ['b', 'a'])], [live('Channel', 'b', 'C2', {}), live('Channel', 'a', 'C1', {})], KINDS).diagnostics;
    expect(two.map((d) => [d.severity, d.field, d.message, d.hint])).toEqual([
      [
        'error',
        '/previousNames',
        'Channel new in account prod: 2 live resources have one of its previousNames (a C1, b C2); which one is it?',
        'keep only the old name of the one to rename, or delete the others in the service',
      ],
    ]);
    const twice = rename([named('n1', ['old']), named('n2', ['old'])], [live('Channel', 'old', 'C1', {})], KINDS).diagnostics;
    expect(twice.map((d) => [d.severity, d.field, d.message])).toEqual([['error', '/previousNames', 'Channel old in account prod is a previous name of both n1 and n2']]);
  });
});

describe('renameLive: a single reference, and what it leaves alone', () => {
  const OneChannel: Kind = { ...Rule, references: [{ kind: 'Channel', pointer: '/channel' }] };
  const kinds = [Channel, OneChannel, Profile, Template];
  const renames = [{ account: 'prod', kind: 'Channel', from: 'old', to: 'new' }];

  it('a single reference to the old name follows the rename', () => {
    const [, rule] = renameLive([live('Channel', 'old', 'C1', {}), live('Rule', 'r', 'R1', { channel: 'old' })], renames, kinds);
    expect(rule.spec).toEqual({ channel: 'new' });
  });

  it('a resource the rename does not touch is the same object: other names, lists without the old name, children of other parents, unknown kinds', () => {
    const untouched = [
      live('Rule', 'r', 'R1', { channel: 'other' }),
      live('Rule', 'r3', 'R3', { channel: 7 }),
      live('Rule', 's', 'R2', { channels: ['x', 'y'] }),
      live('Template', 'P.t', 'T1', {}, { parent: 'P' }),
      live('Nope', 'n', 'N1', { channel: 'old' }),
    ];
    const out = renameLive(untouched, renames, [...kinds, { ...Rule, kind: 'Rule2' }]);
    out.forEach((r, i) => expect(r).toBe(untouched[i]));
    const list = live('Rule', 's', 'R2', { channels: ['x', 'y'] });
    expect(renameLive([list], renames, FAKE_KINDS)[0]).toBe(list);
  });
});
