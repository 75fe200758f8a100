// plan --attribute on a fake client: only drifted accounts, one search each (pages followed), the
// rate-limit budget respected, a failed search a warning, entries matched by the live id.

import { describe, expect, it } from 'vitest';
import { attribute, driftedAccounts, entriesNaming } from '../../src/ops/live/attribute.js';
import { ApiError, type ApiClient, type ApiRequest, type BucketBudget } from '../../src/api/types.js';
import { type AuditEntry, type Change, type Plan, PLAN_FORMAT_VERSION } from '../../src/model/plan.js';

const NOW = Date.parse('2026-11-22T12:00:00.400Z');

function change(account: string, action: Change['action'], name: string, liveId?: string): Change {
  return { key: `${account}/AlertChannel/${name}`, action, kind: 'AlertChannel', account, name, ...(liveId ? { liveId } : {}), writeOnly: [], sensitive: [], dependsOn: [], liveDigest: 'x' };
}

function planOf(changes: Change[], unmanaged: Plan['unmanaged'] = []): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    accounts: ['prod', 'staging', 'dev'].map((name) => ({ name, orgAccess: false })),
    changes,
    summary: { create: 0, update: 0, replace: 0, delete: 0, unmanaged: unmanaged.length },
    unmanaged,
    diagnostics: [],
    apiCalls: { total: 3, byBucket: { 'GET AlertChannels': 3 } },
    budget: [],
  };
}

const rec = (createdTime: string, userName: string, eventDescription: string, userAction = 'update') => ({ accountName: 'prod', createdTime, eventDescription, eventName: 'x', userAction, userName });

function fakeClient(answers: Record<string, unknown>, budget: BucketBudget[] = [], fail: string[] = []): ApiClient & { sent: ApiRequest[] } {
  const sent: ApiRequest[] = [];
  return {
    sent,
    async request<T>(req: ApiRequest) {
      sent.push(req);
      if (req.account && fail.includes(req.account)) throw new ApiError({ kind: 'permanent', status: 403, serviceMessage: 'Forbidden', method: req.method, path: req.path });
      const key = req.method === 'GET' ? req.path : `${req.method} ${req.account}`;
      return { status: 200, body: answers[key] as T };
    },
    budget: () => budget,
    stats: () => ({ total: sent.length, byBucket: sent.length ? ({ 'POST AuditLogs/search': sent.filter((r) => r.method === 'POST').length } as Record<string, number>) : {} }),
    close: async () => undefined,
  };
}

describe('attribute', () => {
  const drifted = planOf([change('prod', 'update', 'ops', 'P_1'), change('staging', 'create', 'new'), change('dev', 'delete', 'old', 'D_9')]);

  it('names the accounts with drift: updates, replaces, deletes and unmanaged, not creates', () => {
    expect(driftedAccounts(drifted)).toEqual(['prod', 'dev']);
    expect(driftedAccounts(planOf([], [{ kind: 'AlertChannel', account: 'staging', name: 'u', id: 'S_1' }]))).toEqual(['staging']);
    expect(driftedAccounts(planOf([change('prod', 'create', 'x')]))).toEqual([]);
  });

  it('searches each drifted account once within a 7-day window, follows nextPage, and matches entries by id', async () => {
    const client = fakeClient({
      'POST prod': { paging: { rows: 1, totalRows: 2, urls: { nextPage: 'http://127.0.0.1/api/v2/AuditLogs/pages/a.2' } }, data: [rec('2026-11-21T10:00:00.000Z', 'a@x', 'Updated alert channel ops (P_1)')] },
      'http://127.0.0.1/api/v2/AuditLogs/pages/a.2': { paging: { rows: 1, totalRows: 2, urls: { nextPage: null } }, data: [rec('2026-11-22T11:00:00.000Z', 'b@x', 'Updated alert channel ops (P_1)')] },
      'POST dev': { data: [rec('2026-11-20T10:00:00.000Z', 'c@x', 'Updated alert channel other (D_99)')] },
    });
    const { plan, diagnostics } = await attribute(drifted, client, { now: NOW });
    expect(diagnostics).toEqual([]);
    expect(client.sent.map((r) => `${r.method} ${r.account} ${r.path}`)).toEqual([
      'POST prod /api/v2/AuditLogs/search',
      'GET prod http://127.0.0.1/api/v2/AuditLogs/pages/a.2',
      'POST dev /api/v2/AuditLogs/search',
    ]);
    expect(client.sent[0].body).toEqual({ timeFilter: { startTime: '2026-11-15T12:00:00Z', endTime: '2026-11-22T12:00:01Z' } });
    expect(plan.changes[0].audit?.map((e) => e.user)).toEqual(['b@x', 'a@x']);
    // D_9 is no match for D_99; a create gets nothing.
    expect(plan.changes[2].audit).toBeUndefined();
    expect(plan.changes[1].audit).toBeUndefined();
    expect(plan.attribution).toEqual({ accounts: ['prod', 'dev'], start: '2026-11-15T12:00:00Z', end: '2026-11-22T12:00:01Z', days: 7, perResource: 5 });
    expect(plan.apiCalls).toEqual({ total: 6, byBucket: { 'GET AlertChannels': 3, 'POST AuditLogs/search': 2 } });
  });

  it('stays within the known budget of the search bucket: the rest is a warning', async () => {
    const budget = [{ bucket: 'POST AuditLogs/search', limit: 120, remaining: 1, resetSeconds: 900, observedAt: 0 }];
    const client = fakeClient({ 'POST prod': { data: [] } }, budget);
    const { plan, diagnostics } = await attribute(drifted, client, { now: NOW });
    expect(client.sent).toHaveLength(1);
    expect(diagnostics.map((d) => d.code)).toEqual(['attribution-budget']);
    expect(diagnostics[0].message).toContain('dev');
    expect(plan.attribution?.accounts).toEqual(['prod']);
  });

  it('a search the service refuses is a warning; the plan keeps going', async () => {
    const client = fakeClient({ 'POST dev': { data: [] } }, [], ['prod']);
    const { plan, diagnostics } = await attribute(drifted, client, { now: NOW });
    expect(diagnostics.map((d) => d.code)).toEqual(['attribution-failed']);
    expect(plan.attribution?.accounts).toEqual(['dev']);
    expect(plan.diagnostics.map((d) => d.code)).toEqual(['attribution-failed']);
  });
});

describe('entriesNaming', () => {
  const e = (at: string, description: string): AuditEntry => ({ at, user: 'u', action: 'update', description });
  it('matches the id as a whole word, newest first, at most five', () => {
    const entries = [
      e('2026-01-01T00:00:00.000Z', 'Updated alert profile CUSTOM_A'),
      e('2026-01-02T00:00:00.000Z', 'Updated alert template CUSTOM_A.T1'),
      ...[3, 4, 5, 6, 7, 8].map((d) => e(`2026-01-0${d}T00:00:00.000Z`, `Updated alert profile CUSTOM_A (${d})`)),
    ];
    const matched = entriesNaming(entries, 'CUSTOM_A');
    expect(matched.map((m) => m.at.slice(8, 10))).toEqual(['08', '07', '06', '05', '04']);
    expect(entriesNaming(entries, 'CUSTOM_A.T1').map((m) => m.description)).toEqual(['Updated alert template CUSTOM_A.T1']);
  });
});
