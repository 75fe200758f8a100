import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { ApiError, type RequestLogEntry } from '../../src/api/types.js';
import { KEY_ID, SECRET, bearerOf, fakeClock, rejectionOf, startService } from './helpers.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function setup(handle: Parameters<typeof startService>[0]['handle'], extra: { tokenExpirySeconds?: number } = {}) {
  const clock = fakeClock();
  const service = await startService({ handle, now: clock.now });
  const log: RequestLogEntry[] = [];
  const client = createClient({
    baseUrl: service.baseUrl,
    keyId: KEY_ID,
    secret: SECRET,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    log: (e) => log.push(e),
    ...extra,
  });
  cleanup.push(() => service.close(), () => client.close());
  return { clock, service, client, log };
}

describe('token exchange', () => {
  it('sends the secret in X-SVC-UAKS and {keyId, expiryTime} as JSON, then the bearer token', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('https://svc.example.net');
    const seen: Array<{ path: string; headers: Record<string, string>; body: unknown }> = [];
    const capture = (opts: { path: string; headers?: unknown; body?: unknown }) => {
      seen.push({ path: opts.path, headers: opts.headers as Record<string, string>, body: opts.body === undefined || opts.body === null ? undefined : JSON.parse(String(opts.body)) });
    };
    pool
      .intercept({ path: '/api/v2/access/tokens', method: 'POST' })
      .reply((opts) => {
        capture(opts);
        return { statusCode: 201, data: { token: 'TOKEN-abc', expiresAt: '2099-01-01T00:00:00.000Z', extra: 1 } };
      });
    pool.intercept({ path: '/api/v2/AlertChannels', method: 'GET' }).reply((opts) => {
      capture(opts);
      return { statusCode: 200, data: { data: [] } };
    });
    const client = createClient({ baseUrl: 'https://svc.example.net', keyId: KEY_ID, secret: SECRET, dispatcher: agent, tokenExpirySeconds: 7200 });
    const res = await client.request({ method: 'GET', path: '/api/v2/AlertChannels' });
    expect(res).toMatchObject({ status: 200, body: { data: [] } });
    expect(seen).toHaveLength(2);
    expect(seen[0].headers['x-svc-uaks']).toBe(SECRET);
    expect(seen[0].headers['content-type']).toBe('application/json');
    expect(seen[0].headers.authorization).toBeUndefined();
    expect(seen[0].body).toEqual({ keyId: KEY_ID, expiryTime: 7200 });
    expect(seen[1].headers.authorization).toBe('Bearer TOKEN-abc');
    expect(seen[1].headers['content-type']).toBe('application/json');
    expect(seen[1].headers.accept).toBe('application/json');
    expect(seen[1].headers['x-svc-uaks']).toBeUndefined();
    agent.assertNoPendingInterceptors();
    await client.close();
    await agent.close();
  });

  it('caches the token: sequential and concurrent requests share one exchange', async () => {
    const { service, client } = await setup(() => ({ status: 200, json: { data: [] } }));
    await client.request({ method: 'GET', path: '/api/v2/AlertRules' });
    await client.request({ method: 'GET', path: '/api/v2/AlertRules' });
    await Promise.all(Array.from({ length: 6 }, () => client.request({ method: 'GET', path: '/api/v2/CloudAccounts' })));
    expect(service.tokensIssued).toHaveLength(1);
    expect(service.calls().map(bearerOf)).toEqual(Array(8).fill(service.tokensIssued[0]));
  });

  it('concurrent requests wait for one exchange even before the first token exists', async () => {
    const { service, client } = await setup(() => ({ status: 200, json: {} }));
    await Promise.all(Array.from({ length: 5 }, () => client.request({ method: 'GET', path: '/api/v2/AlertChannels' })));
    expect(service.requests.filter((r) => r.url === '/api/v2/access/tokens')).toHaveLength(1);
  });

  it('renews shortly before expiresAt, by the injected clock', async () => {
    const { clock, service, client } = await setup(() => ({ status: 200, json: { data: [] } }), { tokenExpirySeconds: 3600 });
    await client.request({ method: 'GET', path: '/api/v2/AlertRules' });
    clock.t += (3600 - 61) * 1000;
    await client.request({ method: 'GET', path: '/api/v2/AlertRules' });
    expect(service.tokensIssued).toHaveLength(1);
    clock.t += 2000; // now 59 s before expiry: inside the renewal margin
    await client.request({ method: 'GET', path: '/api/v2/AlertRules' });
    expect(service.tokensIssued).toHaveLength(2);
    expect(bearerOf(service.calls()[2])).toBe(service.tokensIssued[1]);
  });

  for (const refusal of [401, 403]) {
    it(`renews once on ${refusal} and repeats the request`, async () => {
      const { service, client } = await setup((req, svc) =>
        bearerOf(req) === svc.tokensIssued[0] ? { status: refusal, json: { message: 'Unauthorized Access' } } : { status: 200, json: { data: { ok: true } } },
      );
      const res = await client.request({ method: 'POST', path: '/api/v2/AlertChannels', body: { name: 'x' } });
      expect(res).toMatchObject({ status: 200, body: { data: { ok: true } } });
      expect(service.tokensIssued).toHaveLength(2);
      expect(service.calls().map(bearerOf)).toEqual(service.tokensIssued);
      expect(client.stats().total).toBe(4);
    });
  }

  it('a second 401 is permanent, after exactly one renewal', async () => {
    const { service, client } = await setup(() => ({ status: 401, json: { message: 'Unauthorized Access' } }));
    const err = await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertChannels' }));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).kind).toBe('permanent');
    expect((err as ApiError).status).toBe(401);
    expect((err as ApiError).serviceMessage).toBe('Unauthorized Access');
    expect(service.tokensIssued).toHaveLength(2);
    expect(service.calls()).toHaveLength(2);
  });

  it('a burst of 401s for the same token costs one renewal', async () => {
    const { service, client } = await setup((req, svc) =>
      bearerOf(req) === svc.tokensIssued[0] ? { status: 401, json: { message: 'expired' }, delayMs: 5 } : { status: 200, json: {} },
    );
    const results = await Promise.all(Array.from({ length: 4 }, () => client.request({ method: 'GET', path: '/api/v2/AlertRules' })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(service.tokensIssued).toHaveLength(2);
    expect(service.calls().filter((r) => bearerOf(r) === service.tokensIssued[1])).toHaveLength(4);
  });

  it('a refused key is a permanent "credentials refused" without the key id or secret', async () => {
    const clock = fakeClock();
    const service = await startService({
      handle: () => ({ status: 200, json: {} }),
      tokenReply: () => ({ status: 401, json: { message: `key ${KEY_ID} with secret ${SECRET} is unknown` } }),
    });
    const log: RequestLogEntry[] = [];
    const client = createClient({ baseUrl: service.baseUrl, keyId: KEY_ID, secret: SECRET, now: clock.now, sleep: clock.sleep, log: (e) => log.push(e) });
    cleanup.push(() => service.close(), () => client.close());
    const err = (await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertChannels' }))) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.kind).toBe('permanent');
    expect(err.status).toBe(401);
    expect(err.message).toContain('credentials refused');
    expect(err.message).not.toContain(KEY_ID);
    expect(err.message).not.toContain(SECRET);
    expect(service.calls()).toHaveLength(0);
    expect(service.requests).toHaveLength(1);
    expect(log.map((e) => [e.method, e.path, e.status])).toEqual([['POST', '/api/v2/access/tokens', 401]]);
  });
});

describe('credentials stay out of errors and logs', () => {
  it('redacts the secret and the token from plain-text and JSON error bodies', async () => {
    const { service, log, client } = await setup((req) => {
      const token = bearerOf(req) ?? '';
      if (req.url.includes('Text')) return { status: 400, text: `<html>bad request with ${token} and ${SECRET}; ${'y'.repeat(400)}</html>` };
      return { status: 422, json: { message: `token ${token} rejected for secret ${SECRET}` } };
    });
    const errText = (await rejectionOf(client.request({ method: 'GET', path: '/api/v2/Text' }))) as ApiError;
    const errJson = (await rejectionOf(client.request({ method: 'GET', path: '/api/v2/Json' }))) as ApiError;
    const token = service.tokensIssued[0];
    for (const err of [errText, errJson]) {
      expect(err).toBeInstanceOf(ApiError);
      expect(err.kind).toBe('permanent');
      expect(err.message).not.toContain(SECRET);
      expect(err.message).not.toContain(token);
      expect(err.serviceMessage).not.toContain(SECRET);
      expect(err.serviceMessage).not.toContain(token);
      expect(err.message).toContain('[redacted]');
    }
    // A body that is not JSON gives its first 200 characters.
    expect(errText.serviceMessage!.length).toBe(200);
    expect(errText.serviceMessage!.startsWith('<html>bad request with [redacted] and [redacted];')).toBe(true);
    const logged = JSON.stringify(log);
    expect(log.length).toBeGreaterThanOrEqual(3);
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(KEY_ID);
    expect(Object.keys(log[1]).sort()).toEqual(['attempt', 'bucket', 'method', 'ms', 'path', 'status']);
  });

  it('log entries carry method, path, status, bucket, remaining and attempt only', async () => {
    const { client, log } = await setup(() => ({
      status: 200,
      json: { data: [] },
      headers: { 'RateLimit-Limit': '120', 'RateLimit-Remaining': '117', 'RateLimit-Reset': '30' },
    }));
    await client.request({ method: 'GET', path: '/api/v2/AlertChannels/ABC', account: 'prod' });
    expect(log[1]).toEqual({ method: 'GET', path: '/api/v2/AlertChannels/ABC', account: 'prod', status: 200, ms: 0, bucket: 'GET AlertChannels', remaining: 117, attempt: 1 });
  });
});
