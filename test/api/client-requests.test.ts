import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { ApiError, ClientConfigError, unwrapData } from '../../src/api/types.js';
import { KEY_ID, SECRET, fakeClock, rejectionOf, startService, type Reply, type SeenRequest } from './helpers.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function setup(handle: (req: SeenRequest) => Reply, baseSuffix = '') {
  const clock = fakeClock();
  const service = await startService({ handle, now: clock.now });
  const client = createClient({ baseUrl: service.baseUrl + baseSuffix, keyId: KEY_ID, secret: SECRET, now: clock.now, sleep: clock.sleep, random: () => 0.5 });
  cleanup.push(() => service.close(), () => client.close());
  return { clock, service, client };
}

describe('headers and bodies', () => {
  it('sends Account-Name and Org-Access only when asked', async () => {
    const { service, client } = await setup(() => ({ status: 200, json: { data: [] } }));
    await client.request({ method: 'GET', path: '/api/v2/AlertChannels' });
    await client.request({ method: 'GET', path: '/api/v2/AlertChannels', account: 'staging' });
    await client.request({ method: 'GET', path: '/api/v2/AlertChannels', orgAccess: true });
    const [plain, account, org] = service.calls();
    expect(plain.headers['account-name']).toBeUndefined();
    expect(plain.headers['org-access']).toBeUndefined();
    expect(account.headers['account-name']).toBe('staging');
    expect(account.headers['org-access']).toBeUndefined();
    expect(org.headers['org-access']).toBe('true');
    expect(org.headers['account-name']).toBeUndefined();
  });

  it('sends the body as JSON and returns {data} and bare bodies as they came', async () => {
    const { service, client } = await setup((req) => {
      if (req.url === '/api/v2/AlertProfiles') return { status: 200, json: [{ alertProfileId: 'P1', future: 'field' }] };
      if (req.method === 'DELETE') return { status: 204 };
      return { status: 201, json: { data: { intgGuid: 'G1', name: 'n', unknownMember: { x: 1 } } } };
    });
    const created = await client.request({ method: 'POST', path: '/api/v2/AlertChannels', body: { name: 'n', enabled: 1, data: { a: [1, 2] } } });
    expect(created).toMatchObject({ status: 201, body: { data: { intgGuid: 'G1', name: 'n', unknownMember: { x: 1 } } } });
    expect(unwrapData(created.body)).toEqual({ intgGuid: 'G1', name: 'n', unknownMember: { x: 1 } });
    expect(JSON.parse(service.calls()[0].body)).toEqual({ name: 'n', enabled: 1, data: { a: [1, 2] } });
    const profiles = await client.request({ method: 'GET', path: '/api/v2/AlertProfiles' });
    expect(profiles.body).toEqual([{ alertProfileId: 'P1', future: 'field' }]);
    expect(unwrapData(profiles.body)).toEqual([{ alertProfileId: 'P1', future: 'field' }]);
    const deleted = await client.request({ method: 'DELETE', path: '/api/v2/AlertChannels/G1' });
    expect(deleted).toMatchObject({ status: 204, body: undefined });
    expect(service.calls()[2].body).toBe('');
  });

  it('keeps a path prefix of the base URL in front of /api/v2', async () => {
    const { service, client } = await setup(() => ({ status: 200, json: { data: [] } }), '/tenant-a/');
    await client.request({ method: 'GET', path: '/api/v2/AlertRules' });
    expect(service.requests.map((r) => r.url)).toEqual(['/tenant-a/api/v2/access/tokens', '/tenant-a/api/v2/AlertRules']);
  });
});

describe('errors', () => {
  it('400 is permanent, carries the service message, and is not repeated', async () => {
    const { service, client } = await setup(() => ({ status: 400, json: { message: 'Invalid data: #1: [filters/severity: expected array]' } }));
    const err = (await rejectionOf(client.request({ method: 'POST', path: '/api/v2/AlertRules', body: {} }))) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.kind).toBe('permanent');
    expect(err.status).toBe(400);
    expect(err.serviceMessage).toBe('Invalid data: #1: [filters/severity: expected array]');
    expect(err.message).toBe('POST /api/v2/AlertRules failed (permanent): 400: Invalid data: #1: [filters/severity: expected array]');
    expect(service.calls()).toHaveLength(1);
  });

  it('409 and 404 are permanent too', async () => {
    const { client } = await setup((req) =>
      req.method === 'DELETE' ? { status: 409, json: { message: 'channel is used by rule r1' } } : { status: 404, json: { message: 'Not found' } },
    );
    const conflict = (await rejectionOf(client.request({ method: 'DELETE', path: '/api/v2/AlertChannels/G1' }))) as ApiError;
    expect([conflict.kind, conflict.status, conflict.serviceMessage]).toEqual(['permanent', 409, 'channel is used by rule r1']);
    const missing = (await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertChannels/G2' }))) as ApiError;
    expect([missing.kind, missing.status]).toEqual(['permanent', 404]);
  });

  it('does not follow a redirect', async () => {
    const { service, client } = await setup((req) =>
      req.url.startsWith('/api/v2/AlertChannels') ? { status: 302, headers: { location: 'https://elsewhere.example.org/steal' } } : { status: 200, json: {} },
    );
    const err = (await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertChannels' }))) as ApiError;
    expect(err.kind).toBe('permanent');
    expect(err.status).toBe(302);
    expect(err.message).toContain('unexpected redirect');
    expect(service.calls()).toHaveLength(1);
  });

  it('a 2xx body that is not JSON: permanent for a read, outcome-unknown for a create', async () => {
    const { client } = await setup(() => ({ status: 200, text: '<html>proxy page</html>' }));
    const read = (await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertRules' }))) as ApiError;
    expect(read.kind).toBe('permanent');
    const write = (await rejectionOf(client.request({ method: 'POST', path: '/api/v2/AlertRules', body: {} }))) as ApiError;
    expect(write.kind).toBe('outcome-unknown');
  });
});

describe('credentials go to the configured origin only', () => {
  it('refuses an absolute URL on another origin and a path outside /api/v2, before sending anything', async () => {
    const { service, client } = await setup(() => ({ status: 200, json: {} }));
    const other = await rejectionOf(client.request({ method: 'GET', path: 'https://attacker.example.com/api/v2/AlertRules' }));
    expect(other).toBeInstanceOf(ClientConfigError);
    expect((other as Error).message).toContain('attacker.example.com');
    const sneaky = await rejectionOf(client.request({ method: 'GET', path: '//attacker.example.com/api/v2/AlertRules' }));
    expect(sneaky).toBeInstanceOf(ClientConfigError);
    const outside = await rejectionOf(client.request({ method: 'GET', path: '/api/v1/AlertRules' }));
    expect(outside).toBeInstanceOf(ClientConfigError);
    expect((outside as Error).message).toContain('must start with /api/v2');
    const dots = await rejectionOf(client.request({ method: 'GET', path: '/api/v2/../admin' }));
    expect(dots).toBeInstanceOf(ClientConfigError);
    expect(service.requests).toHaveLength(0);
    expect(client.stats().total).toBe(0);
  });

  it('accepts an absolute URL on the configured origin (a paging link)', async () => {
    const { service, client } = await setup(() => ({ status: 200, json: { data: [] } }));
    const res = await client.request({ method: 'GET', path: `${service.baseUrl}/api/v2/CloudActivities?page=2` });
    expect(res.status).toBe(200);
    expect(service.calls().map((r) => r.url)).toEqual(['/api/v2/CloudActivities?page=2']);
  });

  it('refuses plain http to a host that is not loopback', () => {
    expect(() => createClient({ baseUrl: 'http://svc.example.net', keyId: KEY_ID, secret: SECRET })).toThrow(ClientConfigError);
    expect(() => createClient({ baseUrl: 'http://svc.example.net', keyId: KEY_ID, secret: SECRET })).toThrow('HTTPS is required for svc.example.net');
  });

  it('never reaches the network through a MockAgent for a foreign origin', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get('https://attacker.example.com').intercept({ path: () => true, method: () => true }).reply(200, {}).persist();
    const client = createClient({ baseUrl: 'https://svc.example.net', keyId: KEY_ID, secret: SECRET, dispatcher: agent });
    const err = await rejectionOf(client.request({ method: 'GET', path: 'https://attacker.example.com/api/v2/AlertRules' }));
    expect(err).toBeInstanceOf(ClientConfigError);
    expect(agent.pendingInterceptors()).toHaveLength(1);
    await client.close();
    await agent.close();
  });

  it('refuses an account name that cannot be a header value', async () => {
    const { service, client } = await setup(() => ({ status: 200, json: {} }));
    const err = await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertRules', account: 'prod\r\nX-Evil: 1' }));
    expect(err).toBeInstanceOf(ClientConfigError);
    expect(service.requests).toHaveLength(0);
  });
});

describe('lifecycle', () => {
  it('close() leaves an injected dispatcher open', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('https://svc.example.net');
    pool.intercept({ path: '/api/v2/access/tokens', method: 'POST' }).reply(201, { token: 'TOKEN-mock-0001', expiresAt: '2099-01-01T00:00:00.000Z' }).persist();
    pool.intercept({ path: '/api/v2/AlertRules', method: 'GET' }).reply(200, { data: [] }).persist();
    const first = createClient({ baseUrl: 'https://svc.example.net', keyId: KEY_ID, secret: SECRET, dispatcher: agent });
    await first.request({ method: 'GET', path: '/api/v2/AlertRules' });
    await first.close();
    await expect(first.request({ method: 'GET', path: '/api/v2/AlertRules' })).rejects.toThrow('closed');
    const second = createClient({ baseUrl: 'https://svc.example.net', keyId: KEY_ID, secret: SECRET, dispatcher: agent });
    await expect(second.request({ method: 'GET', path: '/api/v2/AlertRules' })).resolves.toMatchObject({ status: 200, body: { data: [] } });
    await second.close();
    await agent.close();
  });

  it('rejects option values out of range', () => {
    expect(() => createClient({ baseUrl: 'https://svc.example.net', keyId: KEY_ID, secret: SECRET, concurrency: 0 })).toThrow('concurrency');
    expect(() => createClient({ baseUrl: 'https://svc.example.net', keyId: KEY_ID, secret: SECRET, tokenExpirySeconds: 90_000 })).toThrow('tokenExpirySeconds');
    expect(() => createClient({ baseUrl: 'https://svc.example.net', keyId: KEY_ID, secret: '' })).toThrow(ClientConfigError);
  });
});
