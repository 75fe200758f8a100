// Kinds that read the same list share one answer: not a copy per kind (a large list copied per
// reader was most of a run's memory), but frozen, so that no kind can change what another reads.

import { describe, expect, it } from 'vitest';
import { fetchContext } from '../../src/ops/live/fetch.js';
import { FakeClient } from './plan-fakes.js';

const tables = {
  prod: {
    '/api/v2/AlertProfiles': { data: [{ alertProfileId: 'P', alerts: [{ name: 't', subject: 's' }], fields: [{ name: 'f' }] }] },
  },
};

describe('fetchContext: a list shared by kinds', () => {
  it('is read once and handed to every reader as the same frozen value, all the way down', async () => {
    const client = new FakeClient(tables);
    const ctx = fetchContext(client, { name: 'prod', orgAccess: false });
    const [a, b] = await Promise.all([ctx.get('/api/v2/AlertProfiles'), ctx.get('/api/v2/AlertProfiles')]);
    expect(client.requests).toHaveLength(1);
    expect(a).toBe(b);
    const records = a as { alertProfileId: string; alerts: { subject: string }[] }[];
    expect(records[0].alertProfileId).toBe('P');
    expect(Object.isFrozen(records)).toBe(true);
    expect(Object.isFrozen(records[0].alerts[0])).toBe(true);
  });

  it('a reader that writes into it fails loudly instead of changing what the others read', async () => {
    const ctx = fetchContext(new FakeClient(tables), { name: 'prod', orgAccess: false });
    const records = (await ctx.get('/api/v2/AlertProfiles')) as { alerts: { subject: string }[] }[];
    expect(() => {
      records[0].alerts[0].subject = 'changed';
    }).toThrow(TypeError);
    expect(() => records.push({ alerts: [] })).toThrow(TypeError);
    const again = (await ctx.get('/api/v2/AlertProfiles')) as { alerts: { subject: string }[] }[];
    expect(again[0].alerts[0].subject).toBe('s');
  });
});
