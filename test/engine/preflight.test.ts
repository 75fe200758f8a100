import { describe, expect, it } from 'vitest';
import { leaseGroups, leaseRestGroups, leaseTakeGroups, preflight, preflightLine, readGroups, recordGroups, renewalPeriodSeconds, TOKEN_GROUP, writeGroups } from '../../src/ops/budget/preflight.js';
import { durationText } from '../../src/model/duration.js';
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

  it('counts one lease whatever the accounts and the writes: taking it, its release, and a renewal per period of the run', () => {
    // A list and a create to take it, a delete of the generation it replaced, a PATCH marking it released.
    expect(leaseGroups()).toEqual([
      { buckets: ['GET AlertProfiles'], requests: 1 },
      { buckets: ['POST AlertProfiles'], requests: 1 },
      { buckets: ['DELETE AlertProfiles'], requests: 1 },
      { buckets: ['PATCH AlertProfiles'], requests: 1 },
    ]);
    expect(leaseTakeGroups().reduce((n, g) => n + g.requests, 0)).toBe(3);
    // A renewal each fence span (120 s less the 31 s margin) less its 20 s lead: 69 s at the default 30 s request bound.
    expect(renewalPeriodSeconds()).toBe(69);
    expect(renewalPeriodSeconds(10_000)).toBe(89);
    expect(leaseRestGroups(68)).toEqual([{ buckets: ['PATCH AlertProfiles'], requests: 1 }]);
    expect(leaseRestGroups(69)).toEqual([
      { buckets: ['GET AlertProfiles'], requests: 1 },
      { buckets: ['PATCH AlertProfiles'], requests: 2 },
    ]);
    // An hour: 52 renewals, within one bucket's 120 an hour.
    expect(leaseRestGroups(3600)).toEqual([
      { buckets: ['GET AlertProfiles'], requests: 52 },
      { buckets: ['PATCH AlertProfiles'], requests: 53 },
    ]);
  });

  it('counts recording the applied commit in every account: a list and the write each', () => {
    expect(recordGroups(accounts(3))).toEqual([
      { buckets: ['GET AlertProfiles'], requests: 3 },
      { buckets: ['PATCH AlertProfiles'], requests: 3 },
    ]);
    expect(recordGroups([])).toEqual([]);
  });

  it('says durations as people do', () => {
    expect([40, 600, 3900, 7200, 11_400].map(durationText)).toEqual(['40 s', '10 min', '1 h 5 min', '2 h', '3 h 10 min']);
  });
});
