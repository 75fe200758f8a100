import { describe, expect, it } from 'vitest';
import { ignoreChanges } from '../../../src/engine/plan-steps/ignore.js';
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

  it('a live value shown masked is not taken: the member is left out, masks inside an object dropped', () => {
    const d = withIgnore(desired('Channel', 'c', { type: 'Slack', data: { token: 'mine', auth: { id: 'a' } } }), ['/data/token', '/data/auth']);
    const l = live('Channel', 'c', 'C1', { type: 'Slack', data: { token: '****', auth: { id: 'b', secret: '*****xyz' } } });
    const r = ignoreChanges(frozen([matchOf(d, l)]));
    expect(r.matches[0].desired.spec).toEqual({ type: 'Slack', data: { auth: { id: 'b' } } });
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
