import { afterEach, describe, expect, it, vi } from 'vitest';
import { request } from 'node:http';
import { manualClock, scaledClock } from '../../src/emulator/index.js';
import { boot, slack, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
  h = undefined;
});

function rate(r: { headers: Headers }) {
  return ['Limit', 'Remaining', 'Reset'].map((n) => r.headers.get(`RateLimit-${n}`));
}

describe('rate-limit buckets', () => {
  it('refuses the 121st list call in an hour with 429 and RateLimit-* headers, then refills', async () => {
    const clock = manualClock();
    h = await boot({ clock });
    let last;
    for (let i = 0; i < 120; i++) last = await h.call('GET', 'AlertChannels');
    expect(last!.status).toBe(200);
    expect(rate(last!)).toEqual(['120', '0', '30']);
    const refused = await h.call('GET', 'AlertChannels');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: 'Rate limit exceeded' });
    expect(rate(refused)).toEqual(['120', '0', '30']);
    // Another functionality has its own bucket.
    const rules = await h.call('GET', 'AlertRules');
    expect(rules.status).toBe(200);
    expect(rate(rules)).toEqual(['120', '119', '0']);
    clock.advance(20_000);
    expect(rate(await h.call('GET', 'AlertChannels'))).toEqual(['120', '0', '10']);
    clock.advance(10_000);
    const after = await h.call('GET', 'AlertChannels');
    expect(after.status).toBe(200);
    expect(rate(after)).toEqual(['120', '0', '30']);
  });

  it('shares one bucket between listing and reading one record; writes have their own', async () => {
    h = await boot({ rateLimit: 3 });
    const created = await h.call('POST', 'AlertChannels', { body: slack('a') });
    expect(rate(created)).toEqual(['3', '2', '0']);
    const id = created.body.data.intgGuid;
    expect((await h.call('GET', 'AlertChannels')).status).toBe(200);
    expect((await h.call('GET', `AlertChannels/${id}`)).status).toBe(200);
    expect((await h.call('GET', 'AlertChannels/SlackChannel')).status).toBe(200);
    expect((await h.call('GET', `AlertChannels/${id}`)).status).toBe(429);
    expect((await h.call('PATCH', `AlertChannels/${id}`, { body: { enabled: 0 } })).status).toBe(200);
  });

  it('counts per API key, not per account', async () => {
    h = await boot({ rateLimit: 2 });
    expect((await h.call('GET', 'AlertRules', { account: 'prod' })).status).toBe(200);
    expect((await h.call('GET', 'AlertRules', { account: 'staging' })).status).toBe(200);
    expect((await h.call('GET', 'AlertRules', { org: true })).status).toBe(429);
  });

  it('gives the token exchange its own bucket', async () => {
    h = await boot({ rateLimit: 2 });
    // boot() used one token exchange already.
    expect((await h.exchange({ keyId: h.emu.keyId })).status).toBe(201);
    const third = await h.exchange({ keyId: h.emu.keyId });
    expect(third.status).toBe(429);
    expect(third.headers.get('RateLimit-Limit')).toBe('2');
    expect((await h.call('GET', 'AlertRules')).status).toBe(200);
  });

  it('refills with a scaled clock (a 30 s wait at 1000x)', async () => {
    // The real time scaledClock reads is this test's: 30 virtual seconds are exactly 30 real ms,
    // however long the requests take.
    let real = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => real);
    h = await boot({ rateLimit: 120, clock: scaledClock(1000) });
    for (let i = 0; i < 120; i++) expect((await h.call('GET', 'CloudAccounts')).status).toBe(200);
    const refused = await h.call('GET', 'CloudAccounts');
    expect(refused.status).toBe(429);
    expect(rate(refused)).toEqual(['120', '0', '30']);
    real += 29;
    expect(rate(await h.call('GET', 'CloudAccounts'))).toEqual(['120', '0', '1']);
    real += 1;
    expect((await h.call('GET', 'CloudAccounts')).status).toBe(200);
  });
});

describe('bucket derivation (from the route that matched)', () => {
  const remaining = (r: { headers: Headers }) => r.headers.get('RateLimit-Remaining');

  it('reading one agent access token and listing share a bucket; updating has its own', async () => {
    h = await boot({ rateLimit: 3, clock: manualClock() });
    const a = (await h.call('POST', 'AgentAccessTokens', { body: { tokenAlias: 'a', tokenEnabled: '1' } })).body.data.accessToken;
    const b = (await h.call('POST', 'AgentAccessTokens', { body: { tokenAlias: 'b', tokenEnabled: '1' } })).body.data.accessToken;
    expect(remaining(await h.call('GET', 'AgentAccessTokens'))).toBe('2');
    expect(remaining(await h.call('GET', `AgentAccessTokens/${a}`))).toBe('1');
    expect(remaining(await h.call('GET', `AgentAccessTokens/${b}`))).toBe('0');
    expect((await h.call('GET', 'AgentAccessTokens')).status).toBe(429);
    const patched = await h.call('PATCH', `AgentAccessTokens/${a}`, { body: { tokenEnabled: '1' } });
    expect(patched.status).toBe(200);
    expect(remaining(patched)).toBe('2');
    // Another id, the same update bucket.
    expect(remaining(await h.call('PATCH', `AgentAccessTokens/${b}`, { body: { tokenEnabled: '1' } }))).toBe('1');
  });

  it('treats an identifier spelled like a functionality as an identifier', async () => {
    h = await boot({ rateLimit: 2, clock: manualClock() });
    // Alert profiles have no search endpoint, so `search` here is an alertProfileId.
    expect((await h.call('GET', 'AlertProfiles/search')).status).toBe(404);
    expect(remaining(await h.call('GET', 'AlertProfiles'))).toBe('0');
    expect((await h.call('GET', 'AlertProfiles/SVC_BASE_PROFILE')).status).toBe(429);
  });

  it('gives a path no route knows a bucket of its own, never a real functionality\'s', async () => {
    h = await boot({ rateLimit: 2, clock: manualClock() });
    expect((await h.call('GET', 'AlertChannels/x/y/z')).status).toBe(404);
    expect((await h.call('GET', 'AlertChannels/x/y/z')).status).toBe(404);
    expect((await h.call('GET', 'AlertChannels/x/y/z')).status).toBe(429);
    const list = await h.call('GET', 'AlertChannels');
    expect(list.status).toBe(200);
    expect(remaining(list)).toBe('1');
    const other = await h.call('GET', 'NoSuchThing');
    expect(other.status).toBe(404);
    expect(remaining(other)).toBe('1');
  });

  it('counts a refused method against the functionality the path names', async () => {
    h = await boot({ rateLimit: 2, clock: manualClock() });
    const t = (await h.call('POST', 'AgentAccessTokens', { body: { tokenAlias: 'a', tokenEnabled: '1' } })).body.data.accessToken;
    const refused = await h.call('DELETE', `AgentAccessTokens/${t}`);
    expect(refused.status).toBe(405);
    expect(remaining(refused)).toBe('1');
    expect(remaining(await h.call('DELETE', `AgentAccessTokens/${t}x`))).toBe('0');
    expect(remaining(await h.call('GET', `AgentAccessTokens/${t}`))).toBe('1');
  });
});

describe('request bodies', () => {
  it("answers 400 {message} above 1 MB (no 413 in the seed's status table)", async () => {
    h = await boot();
    const big = 'x'.repeat(1024 * 1024 + 10);
    const r = await h.call('POST', 'AlertChannels', { body: { ...slack('big'), data: { slackUrl: 'https://x', pad: big } } });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/larger than/);
    expect((await h.call('GET', 'AlertChannels')).body.data).toEqual([]);
  });

  it('answers 400 for a chunked body that grows past 1 MB without a length', async () => {
    h = await boot();
    const emu = h.emu;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${emu.url}/api/v2/AlertChannels`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${h!.token}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      const chunk = 'y'.repeat(64 * 1024);
      for (let i = 0; i < 20; i++) req.write(chunk);
      req.end();
    });
    expect(status).toBe(400);
  });

  it('asks for a JSON content type when there is a body', async () => {
    h = await boot();
    const r = await h.call('POST', 'AlertChannels', { raw: JSON.stringify(slack('a')), headers: { 'Content-Type': 'text/plain' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('Content-Type');
  });
});

describe('close()', () => {
  it('closes promptly with keep-alive connections open', async () => {
    const local = await boot();
    await local.call('GET', 'AlertChannels');
    await local.close();
    await expect(fetch(`${local.emu.url}/api/v2/schemas`)).rejects.toThrow();
    expect(local.emu.requestCount()).toBe(2);
  });
});
