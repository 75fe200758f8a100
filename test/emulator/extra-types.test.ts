// The emulator's extraTypes (types of the real service without a table here) and onRequest (what a
// test sees of every request), as the unknown-type secret tests use them.

import { afterEach, describe, expect, it } from 'vitest';
import type { ReceivedRequest } from '../../src/emulator/index.js';
import { boot, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(() => h?.close());

const future = { name: 'future', type: 'FutureCloudCfg', enabled: 1, data: { region: 'eu', credentials: { clientId: 'c', clientSecret: 's3cr3t' }, password: 'p' } };

describe('extraTypes', () => {
  it('stores a record of an extra type as sent, shows it as stored but for its masked members, and updates it', async () => {
    h = await boot({ extraTypes: [{ collection: 'CloudAccounts', type: 'FutureCloudCfg', masked: { 'credentials.clientSecret': '', password: '****' } }] });
    const created = await h.call('POST', 'CloudAccounts', { body: future });
    expect(created.status).toBe(201);
    const shown = { region: 'eu', credentials: { clientId: 'c', clientSecret: '' }, password: '****' };
    expect(created.body.data.data).toEqual(shown);
    expect((await h.call('GET', 'CloudAccounts')).body.data[0].data).toEqual(shown);
    const id = created.body.data.intgGuid;
    const patched = await h.call('PATCH', `CloudAccounts/${id}`, { body: { data: { region: 'us' } } });
    expect(patched.status).toBe(200);
    expect(patched.body.data.data).toEqual({ region: 'us' });
    // Only the shape is checked.
    const bad = await h.call('PATCH', `CloudAccounts/${id}`, { body: { enabled: 2, data: [] } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/enabled: must be 0 or 1.*data: must be object/);
  });

  it('a registry type counts by data.registryType; without the option the type is refused', async () => {
    h = await boot({ extraTypes: [{ collection: 'ContainerRegistries', type: 'QUAY_IO' }] });
    const quay = { name: 'quay', type: 'ContVulnCfg', enabled: 1, data: { registryType: 'QUAY_IO', credentials: { robotToken: 't' } } };
    expect((await h.call('POST', 'ContainerRegistries', { body: quay })).status).toBe(201);
    expect((await h.call('POST', 'CloudAccounts', { body: future })).status).toBe(400);
  });
});

describe('onRequest', () => {
  it('sees each request with its method, path, account and body', async () => {
    const seen: ReceivedRequest[] = [];
    h = await boot({ onRequest: (r) => seen.push(r) });
    await h.call('POST', 'AlertChannels/search', { account: 'prod', body: { filters: [] } });
    expect(seen.at(-1)).toEqual({ method: 'POST', path: '/api/v2/AlertChannels/search', account: 'prod', body: { filters: [] } });
  });
});
