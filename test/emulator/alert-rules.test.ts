import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { boot, slack, type Harness } from './helpers.js';

let h: Harness;
let a: string;
let b: string;
beforeEach(async () => {
  h = await boot();
  a = (await h.call('POST', 'AlertChannels', { body: slack('a') })).body.data.intgGuid;
  b = (await h.call('POST', 'AlertChannels', { body: slack('b') })).body.data.intgGuid;
});
afterEach(() => h.close());

const rule = (intgGuidList: unknown, filters: Record<string, unknown> = {}) => ({
  type: 'Event',
  intgGuidList,
  filters: { name: 'r1', description: 'd', enabled: 1, resourceGroups: [], eventCategory: ['User', 'Cloud'], severity: [3, 1], ...filters },
});

describe('AlertRules', () => {
  it('answers with lowercase filters, reordered lists and an epoch-ms string time', async () => {
    const r = await h.call('POST', 'AlertRules', { body: rule([a]) });
    expect(r.status).toBe(201);
    const d = r.body.data;
    expect(d.mcGuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(d.type).toBe('Event');
    expect(d.intgGuidList).toEqual([a]);
    expect(d.filters).toMatchObject({
      name: 'r1',
      description: 'd',
      enabled: 1,
      resourcegroups: [],
      eventcategory: ['Cloud', 'User'],
      severity: [1, 3],
      createdOrUpdatedBy: 'admin@example.com',
    });
    expect(d.filters.createdOrUpdatedTime).toMatch(/^\d{13}$/);
    expect(d.filters.eventCategory).toBeUndefined();
    expect(d.filters.resourceGroups).toBeUndefined();
  });

  it('lists, reads, patches and deletes', async () => {
    const id = (await h.call('POST', 'AlertRules', { body: rule([a]) })).body.data.mcGuid;
    expect((await h.call('GET', 'AlertRules')).body.data).toHaveLength(1);
    expect((await h.call('GET', `AlertRules/${id}`)).body.data.mcGuid).toBe(id);
    const p = await h.call('PATCH', `AlertRules/${id}`, { body: { intgGuidList: [a, b], filters: { enabled: 0, severity: [5] } } });
    expect(p.status).toBe(200);
    expect(p.body.data.intgGuidList).toEqual([a, b]);
    expect(p.body.data.filters).toMatchObject({ name: 'r1', enabled: 0, severity: [5], eventcategory: ['Cloud', 'User'] });
    expect((await h.call('DELETE', `AlertRules/${id}`)).status).toBe(204);
    expect((await h.call('GET', `AlertRules/${id}`)).status).toBe(404);
  });

  it('has no PUT (405)', async () => {
    const id = (await h.call('POST', 'AlertRules', { body: rule([a]) })).body.data.mcGuid;
    expect((await h.call('PUT', `AlertRules/${id}`, { body: rule([a]) })).status).toBe(405);
  });

  it('refuses unknown channels, empty or duplicate lists, channels of another account', async () => {
    const unknown = await h.call('POST', 'AlertRules', { body: rule(['PROD_0000']) });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('Invalid data: #1: [intgGuidList/0: no alert channel PROD_0000 in this account]');
    const empty = await h.call('POST', 'AlertRules', { body: rule([]) });
    expect(empty.body.message).toBe('Invalid data: #1: [intgGuidList: must have at least 1 item]');
    const dup = await h.call('POST', 'AlertRules', { body: rule([a, a]) });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toContain('intgGuidList/1: duplicate item');
    const elsewhere = await h.call('POST', 'AlertRules', { body: rule([a]), account: 'staging' });
    expect(elsewhere.status).toBe(400);
    const patchUnknown = await h.call('PATCH', `AlertRules/${(await h.call('POST', 'AlertRules', { body: rule([a]) })).body.data.mcGuid}`, {
      body: { intgGuidList: ['X'] },
    });
    expect(patchUnknown.status).toBe(400);
  });

  it('refuses null array members, bad severities and categories, a wrong type', async () => {
    const nul = await h.call('POST', 'AlertRules', { body: rule([a], { eventCategory: null }) });
    expect(nul.status).toBe(400);
    expect(nul.body.message).toBe('Invalid data: #1: [filters/eventCategory: must be array, got null]');
    const six = await h.call('POST', 'AlertRules', { body: rule([a], { severity: [6] }) });
    expect(six.body.message).toBe('Invalid data: #1: [filters/severity/0: must be <= 5]');
    const cat = await h.call('POST', 'AlertRules', { body: rule([a], { eventCategory: ['cloud'] }) });
    expect(cat.body.message).toContain('filters/eventCategory/0: must be one of');
    const type = await h.call('POST', 'AlertRules', { body: { ...rule([a]), type: 'Report' } });
    expect(type.body.message).toContain('type: must be one of "Event"');
    const noFilters = await h.call('POST', 'AlertRules', { body: { type: 'Event', intgGuidList: [a] } });
    expect(noFilters.body.message).toBe('Invalid data: #1: [filters: required]');
  });

  it('searches by the camelCase field names of the seed', async () => {
    await h.call('POST', 'AlertRules', { body: rule([a], { name: 'one', severity: [1] }) });
    await h.call('POST', 'AlertRules', { body: rule([b], { name: 'two', severity: [4], eventCategory: ['File'] }) });
    const names = async (filters: unknown[], returns?: string[]) =>
      (await h.call('POST', 'AlertRules/search', { body: { filters, returns } })).body.data;
    expect((await names([{ field: 'filters.name', expression: 'eq', value: 'two' }])).map((r: any) => r.filters.name)).toEqual(['two']);
    expect((await names([{ field: 'filters.eventCategory', expression: 'eq', value: 'File' }])).map((r: any) => r.filters.name)).toEqual(['two']);
    expect((await names([{ field: 'intgGuidList', expression: 'in', values: [a] }])).map((r: any) => r.filters.name)).toEqual(['one']);
    expect((await names([{ field: 'filters.severity', expression: 'le', value: '2' }])).map((r: any) => r.filters.name)).toEqual(['one']);
    expect(await names([], ['mcGuid'])).toEqual([expect.objectContaining({ mcGuid: expect.any(String) }), expect.any(Object)]);
    expect(Object.keys((await names([], ['mcGuid']))[0])).toEqual(['mcGuid']);
  });
});
