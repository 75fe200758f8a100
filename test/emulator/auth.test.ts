import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/emulator/index.js';
import { boot, slack, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('token exchange', () => {
  it('answers 201 {token, expiresAt} at top level, expiring after expiryTime (default 3600 s)', async () => {
    const clock = manualClock(Date.UTC(2025, 4, 1, 12, 0, 0));
    h = await boot({ clock, keyId: 'KEY1', secret: 's3cret' });
    const r = await h.exchange({ keyId: 'KEY1' });
    expect(r.status).toBe(201);
    expect(r.body.data).toBeUndefined();
    expect(typeof r.body.token).toBe('string');
    expect(r.body.expiresAt).toBe('2025-05-01T13:00:00.000Z');
    const short = await h.exchange({ keyId: 'KEY1', expiryTime: 60 });
    expect(short.body.expiresAt).toBe('2025-05-01T12:01:00.000Z');
    expect(r.headers.get('RateLimit-Limit')).toBe('120');
  });

  it('refuses expiryTime above one day with 400', async () => {
    h = await boot();
    const r = await h.exchange({ keyId: h.emu.keyId, expiryTime: 86401 });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/expiryTime/);
    expect((await h.exchange({ keyId: h.emu.keyId, expiryTime: 86400 })).status).toBe(201);
  });

  it('refuses a wrong secret or key id with 401 {message}', async () => {
    h = await boot();
    const wrongSecret = await h.exchange({ keyId: h.emu.keyId }, 'nope');
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.message).toBe('Unauthorized Access');
    const wrongKey = await h.exchange({ keyId: 'OTHER' });
    expect(wrongKey.status).toBe(401);
    expect(JSON.stringify(wrongKey.body)).not.toContain(h.emu.secret);
  });

  it('refuses a missing keyId with 400 naming the field', async () => {
    h = await boot();
    const r = await h.exchange({});
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Invalid data: #1: [keyId: required]');
  });

  it('generates and reports credentials when none are given', async () => {
    h = await boot();
    expect(h.emu.keyId).toMatch(/^EMULATOR_[0-9A-F]{32}$/);
    expect(h.emu.secret.length).toBeGreaterThan(16);
    expect(h.emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(h.emu.accounts).toEqual(['prod', 'staging']);
  });
});

describe('bearer tokens', () => {
  it('answers 401 {message} without a token or with an unknown one', async () => {
    h = await boot();
    const none = await h.call('GET', 'AlertChannels', { token: null });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: 'Unauthorized Access' });
    expect(none.headers.get('RateLimit-Remaining')).not.toBeNull();
    const bogus = await h.call('GET', 'AlertChannels', { token: 'bogus' });
    expect(bogus.status).toBe(401);
  });

  it('refuses an expired token: 401, and 403 on every third such request', async () => {
    const clock = manualClock();
    h = await boot({ clock });
    const short = await h.exchange({ keyId: h.emu.keyId, expiryTime: 10 });
    const token = short.body.token as string;
    expect((await h.call('GET', 'AlertChannels', { token })).status).toBe(200);
    clock.advance(10_000);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await h.call('GET', 'AlertChannels', { token })).status);
    expect(statuses).toEqual([401, 401, 403, 401, 401, 403]);
    // The long-lived token of the harness is still good.
    expect((await h.call('GET', 'AlertChannels')).status).toBe(200);
  });
});

describe('accounts and organization', () => {
  it('keeps prod and staging apart', async () => {
    h = await boot();
    const created = await h.call('POST', 'AlertChannels', { body: slack('ops'), account: 'prod' });
    expect(created.status).toBe(201);
    expect(created.body.data.intgGuid).toMatch(/^PROD_[0-9A-F]{32}$/);
    const prod = await h.call('GET', 'AlertChannels', { account: 'prod' });
    const staging = await h.call('GET', 'AlertChannels', { account: 'staging' });
    expect(prod.body.data.map((c: any) => c.name)).toEqual(['ops']);
    expect(staging.body.data).toEqual([]);
    const guid = created.body.data.intgGuid;
    expect((await h.call('GET', `AlertChannels/${guid}`, { account: 'staging' })).status).toBe(404);
  });

  it('uses the primary (first) account without Account-Name, and matches names in any case', async () => {
    h = await boot({ accounts: ['Main', 'dev-1'] });
    await h.call('POST', 'AlertChannels', { body: slack('x') });
    const viaHeader = await h.call('GET', 'AlertChannels', { headers: { 'account-name': 'MAIN' } });
    expect(viaHeader.body.data).toHaveLength(1);
    expect(viaHeader.body.data[0].intgGuid).toMatch(/^MAIN_/);
    const other = await h.call('POST', 'AlertChannels', { body: slack('y'), account: 'dev-1' });
    expect(other.body.data.intgGuid).toMatch(/^DEV_1_[0-9A-F]{32}$/);
  });

  it('answers 403 {message} for an unknown Account-Name', async () => {
    h = await boot();
    const r = await h.call('GET', 'AlertChannels', { account: 'nope' });
    expect(r.status).toBe(403);
    expect(r.body.message).toContain('nope');
  });

  it('keeps organization-level data apart; Org-Access ignores Account-Name', async () => {
    h = await boot();
    const org = await h.call('POST', 'AlertChannels', { body: slack('org-wide'), org: true, account: 'nope' });
    expect(org.status).toBe(201);
    expect(org.body.data.isOrg).toBe(1);
    await h.call('POST', 'AlertChannels', { body: slack('local') });
    const orgList = await h.call('GET', 'AlertChannels', { headers: { 'org-access': 'TRUE' } });
    expect(orgList.body.data.map((c: any) => c.name)).toEqual(['org-wide']);
    const prodList = await h.call('GET', 'AlertChannels');
    expect(prodList.body.data.map((c: any) => [c.name, c.isOrg])).toEqual([['local', 0]]);
    const notTrue = await h.call('GET', 'AlertChannels', { headers: { 'Org-Access': 'false' } });
    expect(notTrue.body.data.map((c: any) => c.name)).toEqual(['local']);
  });
});
