// The emulator's ResourceGroups and ReportRules (api-facts.md): default groups in every account (the
// older ones in the older spelling), queries normalised as the service does, 409 for changing or
// deleting a default group and for deleting a group a rule uses; report rules take EmailUser
// channels only and answer every report.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { boot, slack, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await boot({ accounts: ['prod', 'staging'] });
});
afterEach(() => h.close());

const group = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  resourceType: 'AWS',
  description: 'd',
  enabled: 1,
  query: {
    filters: { zeta: { field: 'Region', operation: 'STARTS_WITH', values: ['eu-'] }, alpha: { field: 'Account', operation: 'EQUALS', values: ['1'] } },
    expression: { operator: 'AND', children: [{ operator: 'OR', children: [{ filterName: 'alpha' }] }, { filterName: 'zeta' }] },
  },
  ...extra,
});
const email = { name: 'mail', type: 'EmailUser', enabled: 1, data: { channelProps: { recipients: ['a@example.com'] } } };

describe('ResourceGroups', () => {
  it('lists one default group per resource type in every account, the older ones spelt the older way', async () => {
    for (const account of ['prod', 'staging']) {
      const list = (await h.call('GET', 'ResourceGroups', { account })).body.data;
      expect(list).toHaveLength(7);
      expect(list.every((g: any) => g.isDefaultBoolean === true)).toBe(true);
      expect(new Set(list.map((g: any) => g.resourceType)).size).toBe(7);
      const old = list.filter((g: any) => g.resourceName !== undefined);
      expect(old.length).toBeGreaterThan(0);
      for (const g of old) expect(g).toMatchObject({ guid: expect.any(String), props: expect.any(Object) });
      expect(old.every((g: any) => g.name === undefined && g.resourceGroupGuid === undefined && g.query === undefined)).toBe(true);
    }
  });

  it('renames filters and orders children as the service keeps them', async () => {
    const r = await h.call('POST', 'ResourceGroups', { account: 'prod', body: group('g') });
    expect(r.status).toBe(201);
    expect(r.body.data.query).toEqual({
      filters: { filter0: { field: 'Account', operation: 'EQUALS', values: ['1'] }, filter1: { field: 'Region', operation: 'STARTS_WITH', values: ['eu-'] } },
      expression: { operator: 'AND', children: [{ filterName: 'filter1' }, { operator: 'OR', children: [{ filterName: 'filter0' }] }] },
    });
    expect(r.body.data.resourceGroupGuid).toMatch(/^PROD_[0-9A-F]{32}$/);
  });

  it('refuses a child naming no filter, and a change of resource type', async () => {
    const bad = group('g');
    (bad.query.expression.children as unknown[]).push({ filterName: 'nope' });
    const r = await h.call('POST', 'ResourceGroups', { account: 'prod', body: bad });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('no filter nope');
    const ok = (await h.call('POST', 'ResourceGroups', { account: 'prod', body: group('g') })).body.data;
    const p = await h.call('PATCH', `ResourceGroups/${ok.resourceGroupGuid}`, { account: 'prod', body: { resourceType: 'GCP' } });
    expect(p.status).toBe(400);
  });

  it('answers 409 for changing or deleting a default group', async () => {
    const def = (await h.call('GET', 'ResourceGroups', { account: 'prod' })).body.data[0];
    const id = def.resourceGroupGuid ?? def.guid;
    expect((await h.call('PATCH', `ResourceGroups/${id}`, { account: 'prod', body: { description: 'x' } })).status).toBe(409);
    expect((await h.call('DELETE', `ResourceGroups/${id}`, { account: 'prod' })).status).toBe(409);
    expect((await h.call('GET', 'ResourceGroups', { account: 'prod' })).body.data).toHaveLength(7);
  });

  it('answers 409 for deleting a group an alert or report rule uses, 204 once none does', async () => {
    const g = (await h.call('POST', 'ResourceGroups', { account: 'prod', body: group('g') })).body.data.resourceGroupGuid;
    const slackId = (await h.call('POST', 'AlertChannels', { account: 'prod', body: slack('s') })).body.data.intgGuid;
    const mailId = (await h.call('POST', 'AlertChannels', { account: 'prod', body: email })).body.data.intgGuid;
    const alert = await h.call('POST', 'AlertRules', {
      account: 'prod',
      body: { type: 'Event', intgGuidList: [slackId], filters: { name: 'a', enabled: 1, severity: [1], eventCategory: [], resourceGroups: [g] } },
    });
    const report = await h.call('POST', 'ReportRules', {
      account: 'prod',
      body: { type: 'Report', intgGuidList: [mailId], filters: { name: 'r', enabled: 1, resourceGroups: [g] }, reportNotificationTypes: { pci: true } },
    });
    expect([alert.status, report.status]).toEqual([201, 201]);
    const refused = await h.call('DELETE', `ResourceGroups/${g}`, { account: 'prod' });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('Resource group g is in use by alert rule a, report rule r');
    await h.call('DELETE', `AlertRules/${alert.body.data.mcGuid}`, { account: 'prod' });
    expect((await h.call('DELETE', `ResourceGroups/${g}`, { account: 'prod' })).status).toBe(409);
    await h.call('DELETE', `ReportRules/${report.body.data.mcGuid}`, { account: 'prod' });
    expect((await h.call('DELETE', `ResourceGroups/${g}`, { account: 'prod' })).status).toBe(204);
  });
});

describe('ReportRules', () => {
  it('takes EmailUser channels only and answers every report, false where not ticked', async () => {
    const slackId = (await h.call('POST', 'AlertChannels', { account: 'prod', body: slack('s') })).body.data.intgGuid;
    const mailId = (await h.call('POST', 'AlertChannels', { account: 'prod', body: email })).body.data.intgGuid;
    const body = (list: string[]) => ({ type: 'Report', intgGuidList: list, filters: { name: 'r', severity: [2, 1] }, reportNotificationTypes: { pci: true, brandNewReport: true } });
    const refused = await h.call('POST', 'ReportRules', { account: 'prod', body: body([slackId]) });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('report rules take EmailUser channels only');
    const r = await h.call('POST', 'ReportRules', { account: 'prod', body: body([mailId]) });
    expect(r.status).toBe(201);
    const types = r.body.data.reportNotificationTypes;
    expect(types).toMatchObject({ pci: true, brandNewReport: true, hipaa: false, trendReport: false });
    expect(r.body.data.filters.severity).toEqual([1, 2]);
    const p = await h.call('PATCH', `ReportRules/${r.body.data.mcGuid}`, { account: 'prod', body: { reportNotificationTypes: { pci: false, soc: true } } });
    expect(p.body.data.reportNotificationTypes).toMatchObject({ pci: false, soc: true, brandNewReport: true });
  });
});
