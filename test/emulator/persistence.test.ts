import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../src/emulator/index.js';
import { boot, slack, type Harness } from './helpers.js';

let dir: string;
let h: Harness | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'emu-state-'));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('state file', () => {
  it('keeps accounts, org data and audit logs across a restart, but not tokens', async () => {
    const statePath = join(dir, 'state.json');
    const creds = { keyId: 'KEY', secret: 'SECRET', statePath };
    h = await boot(creds);
    const c = (await h.call('POST', 'AlertChannels', { body: slack('ops') })).body.data;
    await h.call('POST', 'AlertRules', { body: { type: 'Event', intgGuidList: [c.intgGuid], filters: { name: 'r' } } });
    await h.call('POST', 'AlertChannels', { body: slack('org'), org: true });
    await h.call('POST', 'AlertProfiles', {
      body: { alertProfileId: 'MINE', extends: 'SVC_HE_USER_DEFAULT_PROFILE', alerts: [{ name: 'T', eventName: 'e', description: '{{MID}}', subject: 's' }] },
    });
    await h.call('POST', 'AlertChannels', { body: slack('stg'), account: 'staging' });
    const oldToken = h.token;
    await h.close();
    expect(readdirSync(dir)).toEqual(['state.json']);
    expect(readFileSync(statePath, 'utf8')).toContain(c.intgGuid);

    h = await boot(creds);
    expect((await h.call('GET', 'AlertChannels', { token: oldToken })).status).toBe(401);
    const channels = (await h.call('GET', 'AlertChannels')).body.data;
    expect(channels.map((x: any) => x.intgGuid)).toEqual([c.intgGuid]);
    expect((await h.call('GET', 'AlertRules')).body.data[0].intgGuidList).toEqual([c.intgGuid]);
    expect((await h.call('GET', 'AlertChannels', { org: true })).body.data.map((x: any) => x.name)).toEqual(['org']);
    expect((await h.call('GET', 'AlertChannels', { account: 'staging' })).body.data.map((x: any) => x.name)).toEqual(['stg']);
    expect((await h.call('GET', 'AlertProfiles/MINE')).status).toBe(200);
    expect((await h.call('GET', 'AuditLogs')).body.data).toHaveLength(3);
  });

  it('starts empty when the file does not exist', async () => {
    h = await boot({ statePath: join(dir, 'missing.json') });
    expect((await h.call('GET', 'AlertChannels')).body.data).toEqual([]);
  });

  it('refuses to start on a corrupt or foreign file, naming it, and leaves it alone', async () => {
    const corrupt = join(dir, 'corrupt.json');
    writeFileSync(corrupt, '{"formatVersion": 1, "accounts": {');
    await expect(startEmulator({ statePath: corrupt })).rejects.toThrow(`emulator state file ${corrupt} is not valid JSON`);
    expect(readFileSync(corrupt, 'utf8')).toBe('{"formatVersion": 1, "accounts": {');
    const foreign = join(dir, 'foreign.json');
    writeFileSync(foreign, JSON.stringify({ hello: 'world' }));
    await expect(startEmulator({ statePath: foreign })).rejects.toThrow(/foreign\.json is not an emulator state: formatVersion/);
    await expect(startEmulator({ statePath: dir })).rejects.toThrow(/cannot be read/);
  });
});

describe('options', () => {
  it('refuses bad options with a clear message', async () => {
    await expect(startEmulator({ accounts: [] })).rejects.toThrow('accounts must name at least one account');
    await expect(startEmulator({ accounts: ['a', 'A'] })).rejects.toThrow('listed twice');
    await expect(startEmulator({ faults: 2 })).rejects.toThrow('faults must be between 0 and 1');
    await expect(startEmulator({ rateLimit: 0 })).rejects.toThrow('rateLimit must be a positive integer');
  });
});
