import { describe, expect, it } from 'vitest';
import { fetchLive } from '../../src/ops/live/fetch.js';
import { mapBounded } from '../../src/model/concurrency.js';
import { ACCOUNTS, FAKE_KINDS, FakeClient } from './plan-fakes.js';

const tables = {
  prod: {
    '/api/v2/AlertChannels': { data: [{ intgGuid: 'PROD_1', name: 'ops', type: 'Webhook', data: { url: 'u' } }] },
    '/api/v2/AlertRules': { data: [{ mcGuid: 'M1', intgGuidList: ['PROD_1', 'PROD_GONE'], filters: { name: 'r', severity: [1] } }] },
    // Profiles answer with a bare array: fetch passes it through.
    '/api/v2/AlertProfiles': [{ alertProfileId: 'P', extends: 'SVC_A', alerts: [{ name: 't', subject: 's' }] }],
  },
  staging: {
    '/api/v2/AlertChannels': { data: [{ intgGuid: 'STG_1', name: 'ops', type: 'Webhook', data: { url: 'v' } }] },
  },
  org: {
    '/api/v2/AlertChannels': { data: [{ intgGuid: 'ORG_1', name: 'org-hook', type: 'Webhook', data: { url: 'w' } }] },
  },
};
const accounts = [...ACCOUNTS, { name: 'organization', orgAccess: true }];

describe('fetchLive', () => {
  it('sends one GET per distinct list path per account (profiles and templates share one)', async () => {
    const client = new FakeClient(tables);
    const state = await fetchLive(client, accounts, FAKE_KINDS);
    const sent = client.requests.map((r) => `${r.method} ${r.account ?? '-'} ${r.orgAccess ? 'org' : ''} ${r.path}`).sort();
    expect(sent).toEqual(
      [
        'GET - org /api/v2/AlertChannels',
        'GET - org /api/v2/AlertProfiles',
        'GET - org /api/v2/AlertRules',
        'GET prod  /api/v2/AlertChannels',
        'GET prod  /api/v2/AlertProfiles',
        'GET prod  /api/v2/AlertRules',
        'GET staging  /api/v2/AlertChannels',
        'GET staging  /api/v2/AlertProfiles',
        'GET staging  /api/v2/AlertRules',
      ].sort(),
    );
    expect(state.calls).toEqual({ total: 9, byBucket: { 'GET AlertChannels': 3, 'GET AlertProfiles': 3, 'GET AlertRules': 3 } });
    expect(state.accounts).toEqual(accounts);
  });

  it('maps reference ids to names within the account, warning about ids without a match', async () => {
    const state = await fetchLive(new FakeClient(tables), accounts, FAKE_KINDS);
    const rule = state.resources.find((r) => r.kind === 'Rule')!;
    expect(rule.spec.channels).toEqual(['ops', 'PROD_GONE']);
    expect(state.diagnostics?.map((d) => [d.severity, d.code])).toEqual([['warning', 'dangling-reference']]);
    expect(state.diagnostics?.[0].message).toContain('PROD_GONE');
    expect(state.resources.filter((r) => r.kind === 'Template').map((r) => [r.account, r.name, r.parent])).toEqual([['prod', 'P.t', 'P']]);
    expect(state.resources.find((r) => r.account === 'organization')?.name).toBe('org-hook');
  });

  it('leaves the ids of a reference to a kind it did not read in the account, without a warning', async () => {
    // Rules read without their channels (only for an in-use check): their channel ids stay ids.
    const kindsOf = () => FAKE_KINDS.filter((k) => k.kind === 'Rule');
    const state = await fetchLive(new FakeClient(tables), accounts, FAKE_KINDS, { kindsOf });
    const rule = state.resources.find((r) => r.kind === 'Rule')!;
    expect(rule.spec.channels).not.toContain('ops');
    expect(state.diagnostics).toBeUndefined();
  });

  it('keeps the order of accounts and kinds whatever order the answers arrive in', async () => {
    const one = await fetchLive(new FakeClient(tables), accounts, FAKE_KINDS, { concurrency: 1 });
    const many = await fetchLive(new FakeClient(tables), accounts, FAKE_KINDS, { concurrency: 8 });
    expect(JSON.stringify(many.resources)).toBe(JSON.stringify(one.resources));
    expect(one.resources.map((r) => r.account)).toEqual(['prod', 'prod', 'prod', 'prod', 'staging', 'organization']);
  });

  it('mapBounded never runs more than the bound at once', async () => {
    let running = 0;
    let peak = 0;
    const out = await mapBounded([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setImmediate(r));
      running--;
      return n * 2;
    });
    expect(out).toEqual([2, 4, 6, 8, 10, 12, 14]);
    expect(peak).toBe(3);
  });

  it('an API error propagates', async () => {
    const client = new FakeClient(tables);
    client.request = async () => {
      throw new Error('boom');
    };
    await expect(fetchLive(client, accounts, FAKE_KINDS)).rejects.toThrow('boom');
  });
});
