// Seed 001, common rule 1: every call carries `Content-Type: application/json`, and the emulator now
// refuses one without it. The tool's own client against it: the token exchange, a GET without a body,
// a DELETE, and a nextPage GET all succeed, so the header goes out on each of them.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import type { ApiClient } from '../../src/api/types.js';
import { manualClock, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

let emu: RunningEmulator;
let client: ApiClient;
beforeAll(async () => {
  emu = await startEmulator({ accounts: ['prod'], clock: manualClock(Date.parse('2026-01-10T00:00:00Z')), activityRows: 8_000 });
  client = createClient({ baseUrl: emu.url, keyId: emu.keyId, secret: emu.secret, maxRetries: 0 });
});
afterAll(async () => {
  await client?.close();
  await emu?.close();
});

describe("the tool's client sends Content-Type on every call", () => {
  it('a body-less GET and DELETE, after the token exchange', async () => {
    const list = await client.request({ method: 'GET', path: '/api/v2/AlertChannels', account: 'prod' });
    expect(list.status).toBe(200);
    const made = await client.request({
      method: 'POST',
      path: '/api/v2/AlertChannels',
      account: 'prod',
      body: { name: 's', type: 'SlackChannel', enabled: 1, data: { slackUrl: 'https://hooks.slack.com/services/T/B/X' } },
    });
    const id = (made.body as { data: { intgGuid: string } }).data.intgGuid;
    expect((await client.request({ method: 'DELETE', path: `/api/v2/AlertChannels/${id}`, account: 'prod' })).status).toBe(204);
  });

  it('a GET of the nextPage URL (a full URL, no body)', async () => {
    const first = await client.request({ method: 'POST', path: '/api/v2/Activities/ChangedFiles/search', account: 'prod', body: {} });
    const next = (first.body as { paging: { urls: { nextPage: string | null } } }).paging.urls.nextPage;
    expect(next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2\//);
    const page = await client.request({ method: 'GET', path: next!, account: 'prod' });
    expect(page.status).toBe(200);
    expect((page.body as { data: unknown[] }).data.length).toBeGreaterThan(0);
  });
});
