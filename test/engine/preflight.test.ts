import { describe, expect, it } from 'vitest';
import { durationText, leaseGroups, preflight, preflightLine, readGroups, recordGroups, TOKEN_GROUP, writeGroups } from '../../src/ops/budget/preflight.js';
import { KINDS } from '../../src/kinds/index.js';
import type { AccountConfig } from '../../src/model/account.js';
import type { Change } from '../../src/model/plan.js';

const accounts = (n: number): AccountConfig[] => Array.from({ length: n }, (_, i) => ({ name: `a${i}`, orgAccess: false }));
const kinds = (...names: string[]) => KINDS.filter((k) => names.includes(k.kind));
const NOW = Date.parse('2026-11-22T12:00:00Z');

describe('readGroups', () => {
  it('groups one read per account per collection over the list and its search; profiles have no search', () => {
    const groups = readGroups(accounts(3), () => kinds('AlertChannel', 'AlertProfile', 'AlertTemplate'));
    expect(groups).toEqual([
      { buckets: ['GET AlertChannels', 'POST AlertChannels/search'], requests: 3 },
      { buckets: ['GET AlertProfiles'], requests: 3 },
    ]);
    expect(readGroups(accounts(2), () => kinds('AlertRule'), 'list')).toEqual([{ buckets: ['GET AlertRules'], requests: 2 }]);
  });
});

describe('preflight', () => {
  it('with full buckets, 240 reads of a searchable list need no wait, 500 need about an hour', () => {
    const fits = preflight([TOKEN_GROUP, ...readGroups(accounts(240), () => kinds('AlertChannel'))], [], NOW);
    expect(fits.seconds).toBe(0);
    expect(fits.buckets).toEqual([
      { bucket: 'GET AlertChannels', requests: 120, remaining: 120, limit: 120, assumed: true },
      { bucket: 'POST AlertChannels/search', requests: 120, remaining: 120, limit: 120, assumed: true },
      { bucket: 'POST access/tokens', requests: 1, remaining: 120, limit: 120, assumed: true },
    ]);
    expect(preflightLine(fits)).toBe('241 requests in 3 rate-limit buckets; the budget allows them all now');
    const long = preflight(readGroups(accounts(500), () => kinds('AlertChannel')), [], NOW);
    // 260 beyond the 240 at hand: the first after a token interval (30 s), the rest at 240 an hour.
    expect(long.seconds).toBe(30 + 259 * 15);
    expect(long.slowest).toEqual({ buckets: ['GET AlertChannels', 'POST AlertChannels/search'], requests: 500, perHour: 240 });
    expect(preflightLine(long)).toContain('about 1 h 6 min of waiting');
  });

  it('the list alone halves what fits: 240 reads wait an hour for the second 120', () => {
    const p = preflight(readGroups(accounts(240), () => kinds('AlertChannel'), 'list'), [], NOW);
    expect(p.seconds).toBe(30 + 119 * 30);
  });

  it('starts from the budget the service last reported, refilled since', () => {
    const reported = [
      { bucket: 'GET AlertProfiles', limit: 120, remaining: 0, resetSeconds: 30, observedAt: NOW - 60_000 },
    ];
    // A minute after it was empty: the first token came after 30 s, the next 30 s later: 2 left.
    const p = preflight(readGroups(accounts(2), () => kinds('AlertProfile')), reported, NOW);
    expect(p.seconds).toBe(0);
    expect(p.buckets).toEqual([{ bucket: 'GET AlertProfiles', requests: 2, remaining: 2, limit: 120 }]);
    const more = preflight(readGroups(accounts(4), () => kinds('AlertProfile')), reported, NOW);
    expect(more.seconds).toBeGreaterThan(0);
  });

  it('counts the writes of changes per bucket', () => {
    const change = (action: Change['action'], name: string): Change =>
      ({
        key: `a0/AlertChannel/${name}`,
        action,
        kind: 'AlertChannel',
        account: 'a0',
        name,
        after: { type: 'Webhook', enabled: true, data: {} },
        ...(action === 'create' ? {} : { liveId: 'ID' }),
        writeOnly: [],
        sensitive: [],
        dependsOn: [],
        liveDigest: '',
      }) as Change;
    const groups = writeGroups([change('create', 'x'), change('create', 'y'), change('delete', 'z')], KINDS, accounts(1));
    expect(groups).toEqual([
      { buckets: ['POST AlertChannels'], requests: 2 },
      { buckets: ['DELETE AlertChannels'], requests: 1 },
    ]);
  });

  it('requests only the list can carry take what the list and its search left of the list', () => {
    // 240 reads fill both buckets; 10 look-ups that only the list takes wait behind them.
    const p = preflight([{ buckets: ['GET AgentAccessTokens', 'POST AgentAccessTokens/search'], requests: 240 }, { buckets: ['GET AgentAccessTokens'], requests: 10 }], [], NOW);
    expect(p.buckets.map((b) => [b.bucket, b.requests])).toEqual([
      ['GET AgentAccessTokens', 130],
      ['POST AgentAccessTokens/search', 120],
    ]);
    expect(p.seconds).toBe(30 + 9 * 30);
    expect(p.slowest?.buckets).toEqual(['GET AgentAccessTokens']);
  });

  it('counts the lease of every account with changes: taking, a fence read per write, renewals for the run, freeing', () => {
    const groups = leaseGroups(accounts(3), KINDS);
    // Per account: a list and a create, a delete of the generation replaced, a list and a delete to free it, one renewal (a PATCH and two lists).
    expect(groups).toEqual([
      { buckets: ['GET AlertProfiles'], requests: 12 },
      { buckets: ['POST AlertProfiles'], requests: 3 },
      { buckets: ['DELETE AlertProfiles'], requests: 6 },
      { buckets: ['PATCH AlertProfiles'], requests: 3 },
    ]);
    expect(leaseGroups([], KINDS)).toEqual([]);

    const change = (account: string, name: string): Change =>
      ({ key: `${account}/AlertChannel/${name}`, action: 'create', kind: 'AlertChannel', account, name, after: { type: 'Webhook', enabled: true, data: { webhookUrl: 'https://x.example' } }, dependsOn: [] }) as unknown as Change;
    // Two writes in leased accounts (one fence read each, at most), one in an account without a lease; a 10-minute run renews 10 more times per account.
    const busy = leaseGroups(accounts(2), KINDS, [change('a0', 'x'), change('a1', 'y'), change('a9', 'z')], 600);
    expect(busy.find((g) => g.buckets[0] === 'GET AlertProfiles')?.requests).toBe(2 * 2 + 2 + 2 * 2 * 11);
    expect(busy.find((g) => g.buckets[0] === 'PATCH AlertProfiles')?.requests).toBe(2 * 11);
  });

  it('counts recording the applied commit in every account: a list, the fence look and the write each', () => {
    expect(recordGroups(accounts(3), KINDS)).toEqual([
      { buckets: ['GET AlertProfiles'], requests: 6 },
      { buckets: ['PATCH AlertProfiles'], requests: 3 },
    ]);
    expect(recordGroups([], KINDS)).toEqual([]);
    expect(recordGroups(accounts(3), kinds('AlertChannel'))).toEqual([]);
  });

  it('says durations as people do', () => {
    expect([40, 600, 3900, 7200, 11_400].map(durationText)).toEqual(['40 s', '10 min', '1 h 5 min', '2 h', '3 h 10 min']);
  });
});
