import { describe, expect, it } from 'vitest';
import { ignoreChanges } from '../../../src/engine/plan/steps/ignore.js';
import type { DesiredResource } from '../../../src/model/resource.js';
import { desired, live } from '../plan-fakes.js';
import { frozen, matchOf } from './helpers.js';

const withIgnore = (d: DesiredResource, ignore: string[]): DesiredResource => ({ ...d, lifecycle: { ignoreChanges: ignore } });

describe('ignoreChanges', () => {
  it('takes the live value at each pointer, leaves out what live lacks, keeps the rest', () => {
    const d = withIgnore(desired('Channel', 'c', { type: 'Slack', data: { channel: '#mine', team: 'a', extra: 1 } }, { envRefs: { '/data/channel': '${env:C}' } }), [
      '/data/channel',
      '/data/extra',
    ]);
    const l = live('Channel', 'c', 'C1', { type: 'Slack', data: { channel: '#theirs', team: 'b' } });
    const r = ignoreChanges(frozen([matchOf(d, l)]));
    expect(r.diagnostics).toEqual([]);
    expect(r.matches[0].desired.spec).toEqual({ type: 'Slack', data: { channel: '#theirs', team: 'a' } });
    expect(r.matches[0].desired.envRefs).toEqual({});
  });

  it('a live value holding anything shown masked or empty is not taken: the member is left out whole, never sent with a hole', () => {
    const d = withIgnore(desired('Channel', 'c', { type: 'Slack', data: { token: 'mine', auth: { id: 'a' }, headers: [], key: { v: 'k' }, plain: 'p' } }), [
      '/data/token',
      '/data/auth',
      '/data/headers',
      '/data/key',
      '/data/plain',
    ]);
    const l = live('Channel', 'c', 'C1', {
      type: 'Slack',
      data: { token: '****', auth: { id: 'b', secret: '*****xyz' }, headers: [{ name: 'Authorization', value: '****' }], key: { v: '' }, plain: 'theirs' },
    });
    const r = ignoreChanges(frozen([matchOf(d, l)]));
    // A header without its value, or an object with an empty secret, would overwrite what the service holds.
    expect(r.matches[0].desired.spec).toEqual({ type: 'Slack', data: { plain: 'theirs' } });
  });

  it('a create has no live value: the file value stays', () => {
    const d = withIgnore(desired('Channel', 'c', { type: 'Slack', data: { channel: '#mine' } }), ['/data/channel']);
    expect(ignoreChanges([matchOf(d)]).matches[0].desired.spec).toEqual(d.spec);
  });

  it('a secret member cannot be ignored: error, the match unchanged', () => {
    const d = withIgnore(desired('Channel', 'c', { type: 'Pager', data: { apiKey: 'k' } }), ['/data']);
    const m = matchOf(d, live('Channel', 'c', 'C1', { type: 'Pager', data: {} }));
    // The fake kind has no secretMembers; give it one.
    const r = ignoreChanges([{ ...m, kind: { ...m.kind, secretMembers: () => [{ pointer: '/data/apiKey', writeOnly: true }] } }]);
    expect(r.diagnostics.map((x) => x.code)).toEqual(['ignore-secret']);
    expect(r.matches[0].desired.spec).toEqual(d.spec);
  });
});
