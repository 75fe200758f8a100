import { describe, expect, it } from 'vitest';
import { rename, renameLive } from '../../../src/engine/plan/steps/rename.js';
import type { Kind } from '../../../src/kinds/types.js';
import type { DesiredResource } from '../../../src/model/resource.js';
import { Channel, desired, FAKE_KINDS, live, Profile, Rule, Template } from '../plan-fakes.js';
import { frozen } from './helpers.js';

const RenamableChannel: Kind = { ...Channel, renamable: true };
const KINDS: readonly Kind[] = [RenamableChannel, Rule, { ...Profile, renameRefusal: 'its name is its id' }, Template];

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
    const out = renameLive([live('Profile', 'P', 'P', {}), live('Template', 'P.t', 'P.t', {}, { parent: 'P' })], [{ account: 'prod', kind: 'Profile', from: 'P', to: 'Q' }], FAKE_KINDS);
    expect(out.map((x) => [x.name, x.parent])).toEqual([
      ['Q', undefined],
      ['P.t', 'Q'],
    ]);
  });
});
