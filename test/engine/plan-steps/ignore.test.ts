import { describe, expect, it } from 'vitest';
import { ignoreChanges } from '../../../src/plan/steps/ignore.js';
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
    const r = ignoreChanges([
      {
        ...m,
        kind: {
          ...m.kind,
          secrets: {
            ...m.kind.secrets,
            secretMembers: () => [{ pointer: '/data/apiKey', writeOnly: true }],
          },
        },
      },
    ]);
    expect(r.diagnostics.map((x) => x.code)).toEqual(['ignore-secret']);
    expect(r.matches[0].desired.spec).toEqual(d.spec);
  });
});

describe('ignoreChanges: the edges', () => {
  const l = live('Channel', 'c', 'C1', { type: 'Slack', data: { channel: '#theirs', team: 'b', empty: '' } });

  it('a member live lacks is left out of the spec, not kept as an undefined member; one the service shows empty too', () => {
    const d = withIgnore(desired('Channel', 'c', { type: 'Slack', data: { channel: '#mine', extra: 1, empty: 'mine' } }), ['/data/extra', '/data/empty']);
    expect(ignoreChanges([matchOf(d, l)]).matches[0].desired.spec).toStrictEqual({ type: 'Slack', data: { channel: '#mine' } });
  });

  it('the empty pointer (the whole spec) is no member to ignore: the file spec stays', () => {
    const d = withIgnore(desired('Channel', 'c', { type: 'Slack', data: { channel: '#mine' } }), ['']);
    expect(ignoreChanges([matchOf(d, l)]).matches[0].desired.spec).toStrictEqual(d.spec);
  });

  it('env references of the members not ignored stay', () => {
    const d = withIgnore(
      desired('Channel', 'c', { type: 'Slack', data: { channel: '#mine', team: 't' } }, { envRefs: { '/data/channel': '${env:C}', '/data/team': '${env:T}' } }),
      ['/data/channel'],
    );
    expect(ignoreChanges([matchOf(d, l)]).matches[0].desired.envRefs).toEqual({ '/data/team': '${env:T}' });
  });

  it('ignoring a member beside a secret is allowed; one inside a secret is refused, saying where and what to do instead', () => {
    const d = (ignore: string[]) => withIgnore(desired('Channel', 'c', { type: 'Pager', data: { apiKey: { v: 'k' }, team: 't' } }, { line: 5 }), ignore);
    const m = (ignore: string[]) => {
      const base = matchOf(d(ignore), live('Channel', 'c', 'C1', { type: 'Pager', data: { team: 'theirs' } }));
      return { ...base, kind: { ...base.kind, secrets: { ...base.kind.secrets, secretMembers: () => [{ pointer: '/data/apiKey', writeOnly: true as const }] } } };
    };
    const beside = ignoreChanges([m(['/data/team'])]);
    expect(beside.diagnostics).toEqual([]);
    expect(beside.matches[0].desired.spec).toEqual({ type: 'Pager', data: { apiKey: { v: 'k' }, team: 'theirs' } });
    expect(ignoreChanges([m(['/data/apiKey/v'])]).diagnostics).toEqual([
      {
        severity: 'error',
        code: 'ignore-secret',
        message: 'Channel c: lifecycle.ignoreChanges names the secret member /data/apiKey/v, whose live value a plan may not carry',
        file: 'config/resources.yaml',
        line: 5,
        column: 1,
        field: '/lifecycle/ignoreChanges',
        hint: 'give the secret as ${env:NAME} instead, or ignore the members next to it',
      },
    ]);
  });
});

describe('ignoreChanges: untouched and several secrets', () => {
  it('a match without ignoreChanges is passed on as it is', () => {
    const m = matchOf(desired('Channel', 'c', { type: 'Slack' }), live('Channel', 'c', 'C1', { type: 'Slack' }));
    expect(ignoreChanges([m]).matches[0]).toBe(m);
  });

  it('every secret member ignored is named', () => {
    const d = withIgnore(desired('Channel', 'c', { type: 'Pager', data: { apiKey: 'k', token: 't' } }), ['/data/apiKey', '/data/token']);
    const base = matchOf(d, live('Channel', 'c', 'C1', { type: 'Pager', data: {} }));
    const m = {
      ...base,
      kind: {
        ...base.kind,
        secrets: {
          ...base.kind.secrets,
          secretMembers: () => [
            { pointer: '/data/apiKey', writeOnly: true },
            { pointer: '/data/token', writeOnly: true },
          ],
        },
      },
    };
    expect(ignoreChanges([m]).diagnostics[0].message).toBe(
      'Channel c: lifecycle.ignoreChanges names the secret member /data/apiKey, /data/token, whose live value a plan may not carry',
    );
  });
});
