import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { DEFAULT_RETRY_BUDGET_MS } from '../../src/api/options.js';
import { BACKOFF_CAP_MS, backoffMs, isIdempotent } from '../../src/api/retry.js';
import { ApiError, type RequestLogEntry } from '../../src/api/types.js';
import { KEY_ID, SECRET, fakeClock, rejectionOf, startService, type Reply } from './helpers.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  while (cleanup.length > 0) await cleanup.pop()!();
});

const MOCK_ORIGIN = 'https://svc.example.net';
const TIMEOUT_MS = 50;

/**
 * A service that never answers `method path`: a MockAgent whose reply is a promise that never
 * settles, so only the client's own deadline can end an attempt. The deadline is a fake timer: it
 * fires when the test moves time, never because the machine was slow. The token is fetched before
 * the hanging call (with time standing still), so the exchange is not inside any timed window.
 */
async function hanging(method: 'GET' | 'POST', path: string, extra: { maxRetries?: number } = {}) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(MOCK_ORIGIN);
  pool.intercept({ path: '/api/v2/access/tokens', method: 'POST' }).reply(201, { token: 'TOKEN-mock-0001', expiresAt: '2099-01-01T00:00:00.000Z' });
  pool.intercept({ path: '/api/v2/CloudAccounts', method: 'GET' }).reply(200, { data: [] });
  pool
    .intercept({ path, method })
    .reply(200, () => new Promise<never>(() => undefined))
    .times(1 + (extra.maxRetries ?? 0));
  const clock = fakeClock();
  const log: RequestLogEntry[] = [];
  const client = createClient({
    baseUrl: MOCK_ORIGIN,
    keyId: KEY_ID,
    secret: SECRET,
    dispatcher: agent,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    maxRetries: extra.maxRetries ?? 0,
    timeoutMs: TIMEOUT_MS,
    log: (e) => log.push(e),
  });
  cleanup.push(
    () => agent.close(),
    () => client.close(),
  );
  // Token first: no timer is moved while it is fetched, so its deadline cannot pass.
  await client.request({ method: 'GET', path: '/api/v2/CloudAccounts' });
  return { agent, client, clock, attempts: () => log.filter((e) => e.path === path).map((e) => [e.attempt, e.status]) };
}

/** Settles `promise` by moving fake time one timer at a time (each turn lets I/O and promises run); returns the rejection. */
async function rejectionByTimers(promise: Promise<unknown>): Promise<unknown> {
  let settled = false;
  const outcome = rejectionOf(promise).finally(() => {
    settled = true;
  });
  while (!settled) await vi.advanceTimersToNextTimerAsync();
  return outcome;
}

/** Answers each call with the next reply of `script`, repeating the last one. */
async function scripted(script: Reply[], extra: { maxRetries?: number; timeoutMs?: number; random?: () => number; retryBudgetMs?: number } = {}) {
  const clock = fakeClock();
  let i = 0;
  const service = await startService({ handle: () => script[Math.min(i++, script.length - 1)], now: clock.now });
  const log: RequestLogEntry[] = [];
  const waits: Array<[string, number]> = [];
  const client = createClient({
    baseUrl: service.baseUrl,
    keyId: KEY_ID,
    secret: SECRET,
    now: clock.now,
    sleep: clock.sleep,
    random: extra.random ?? (() => 0.5),
    maxRetries: extra.maxRetries,
    timeoutMs: extra.timeoutMs,
    retryBudgetMs: extra.retryBudgetMs,
    onWait: (bucket, s) => waits.push([bucket, s]),
    log: (e) => log.push(e),
  });
  cleanup.push(() => service.close(), () => client.close());
  return { clock, service, client, log, waits };
}

const ok: Reply = { status: 200, json: { data: { ok: 1 } } };
const e500: Reply = { status: 500, json: { message: 'Internal error' } };
const e503: Reply = { status: 503, text: 'Service Unavailable' };

describe('backoff', () => {
  it('is exponential with full jitter, capped at 8 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, () => 0.999999))).toEqual([249, 499, 999, 1999, 3999, 7999, 7999]);
    expect(backoffMs(3, () => 0)).toBe(0);
    expect(backoffMs(2, () => 0.5)).toBe(500);
    expect(backoffMs(40, () => 0.5)).toBe(BACKOFF_CAP_MS / 2);
  });

  it('treats GET, PUT, PATCH, DELETE and searches as idempotent, other POSTs not', () => {
    expect(['GET', 'PUT', 'PATCH', 'DELETE'].map((method) => isIdempotent({ method: method as 'GET', path: '/api/v2/AlertRules/X' }))).toEqual([true, true, true, true]);
    expect(isIdempotent({ method: 'POST', path: '/api/v2/AlertRules' })).toBe(false);
    expect(isIdempotent({ method: 'POST', path: '/api/v2/AlertRules/search' })).toBe(true);
    expect(isIdempotent({ method: 'POST', path: '/api/v2/AlertRules', idempotent: true })).toBe(true);
  });
});

describe('retries of idempotent calls', () => {
  it('GET retries 500 and 503 with backoff, then succeeds', async () => {
    const { service, client, clock, log } = await scripted([e500, e503, ok]);
    const res = await client.request({ method: 'GET', path: '/api/v2/AlertChannels' });
    expect(res.body).toEqual({ data: { ok: 1 } });
    expect(service.calls()).toHaveLength(3);
    expect(clock.sleeps).toEqual([125, 250]);
    expect(log.filter((e) => e.path === '/api/v2/AlertChannels').map((e) => [e.status, e.attempt])).toEqual([
      [500, 1],
      [503, 2],
      [200, 3],
    ]);
  });

  it('GET retries a dropped connection', async () => {
    const { service, client, clock, log } = await scripted(['drop', ok]);
    await expect(client.request({ method: 'GET', path: '/api/v2/AlertRules' })).resolves.toMatchObject({ status: 200, body: { data: { ok: 1 } } });
    expect(service.calls()).toHaveLength(2);
    expect(clock.sleeps).toEqual([125]);
    expect(log.map((e) => e.status)).toEqual([201, 'network-error', 200]);
  });

  it('gives up after maxRetries with a transient error', async () => {
    const { service, client, clock } = await scripted([e503], { maxRetries: 3, random: () => 0.999 });
    const err = (await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertRules' }))) as ApiError;
    expect(err.kind).toBe('transient');
    expect(err.status).toBe(503);
    expect(err.serviceMessage).toBe('Service Unavailable');
    expect(service.calls()).toHaveLength(4);
    expect(clock.sleeps).toEqual([249, 499, 999]);
  });

  it('a read is retried for a time, not a count: each retry starts only if it fits the budget with its own bound', async () => {
    // Budget 10 s, bound 1 s: backoffs 249, 499, 999, 1999, 3999 ms (7745 ms spent); the next,
    // 7999 ms and its bound, would end past 10 s. The count bound (100) is not what stops it.
    const { service, client, clock } = await scripted([e503], { retryBudgetMs: 10_000, timeoutMs: 1000, random: () => 0.999999 });
    const err = (await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertRules' }))) as ApiError;
    expect(err.kind).toBe('transient');
    expect(err.status).toBe(503);
    expect(clock.sleeps).toEqual([249, 499, 999, 1999, 3999]);
    expect(service.calls().filter((c) => c.url === '/api/v2/AlertRules')).toHaveLength(6);
    expect(client.retryBudget?.()).toBe(10_000);
  });

  it('the default budget is 2 minutes, long enough for 20 failures in a row and more, and ends by itself', async () => {
    const { service, client, clock } = await scripted([e503], { random: () => 0.999999 });
    expect(client.retryBudget?.()).toBe(DEFAULT_RETRY_BUDGET_MS);
    expect(DEFAULT_RETRY_BUDGET_MS).toBe(120_000);
    await expect(rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertRules' }))).resolves.toBeInstanceOf(ApiError);
    const slept = clock.sleeps.reduce((n, ms) => n + ms, 0);
    // Every backoff and the default 30 s bound of the last attempt fit in 2 min; one more would not.
    expect(slept + 30_000).toBeLessThanOrEqual(120_000);
    expect(slept + 7999 + 30_000).toBeGreaterThan(120_000);
    expect(service.calls().filter((c) => c.url === '/api/v2/AlertRules').length).toBeGreaterThan(15);
  });

  it('a retry that succeeds inside the budget returns the answer after many failures', async () => {
    const { client, clock } = await scripted([...Array.from({ length: 12 }, () => e500), ok], { random: () => 0.5 });
    await expect(client.request({ method: 'GET', path: '/api/v2/AlertRules' })).resolves.toMatchObject({ status: 200 });
    expect(clock.sleeps).toHaveLength(12);
  });

  it('time spent waiting for a rate-limit bucket does not count against the retry budget', async () => {
    // A 429 whose bucket refills in 60 s (longer than the whole 10 s budget), then 503s: the
    // backoffs after the wait still get the budget's 10 s.
    const limited: Reply = { status: 429, json: { message: 'Too many requests' }, headers: { 'ratelimit-limit': '120', 'ratelimit-remaining': '0', 'ratelimit-reset': '60' } };
    const { service, client, clock } = await scripted([limited, e503], { retryBudgetMs: 10_000, timeoutMs: 1000, random: () => 0.999 });
    await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertRules' }));
    const waited = clock.sleeps.filter((ms) => ms >= 1000 && ms % 1000 === 0).reduce((n, ms) => n + ms, 0);
    expect(waited).toBeGreaterThanOrEqual(59_000);
    expect(service.calls().filter((c) => c.url === '/api/v2/AlertRules').length).toBeGreaterThanOrEqual(5);
  });

  it('PUT and PATCH are repeated after a 502 (their bodies set absolute values)', async () => {
    const { service, client } = await scripted([{ status: 502, text: 'Bad Gateway' }, ok, { status: 504, text: '' }, ok]);
    await client.request({ method: 'PUT', path: '/api/v2/CloudAccounts/G1', body: { name: 'a' } });
    await client.request({ method: 'PATCH', path: '/api/v2/CloudAccounts/G1', body: { enabled: 0 } });
    expect(service.calls().map((r) => r.method)).toEqual(['PUT', 'PUT', 'PATCH', 'PATCH']);
  });

  it('times out a hanging GET and retries it', async () => {
    const { agent, client, clock, attempts } = await hanging('GET', '/api/v2/AlertRules', { maxRetries: 1 });
    const err = await rejectionByTimers(client.request({ method: 'GET', path: '/api/v2/AlertRules' }));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).kind).toBe('transient');
    expect((err as ApiError).message).toContain(`timed out after ${TIMEOUT_MS} ms`);
    // Two attempts, each ended by its own deadline, with a backoff between them; one token.
    expect(attempts()).toEqual([
      [1, 'network-error'],
      [2, 'network-error'],
    ]);
    expect(clock.sleeps).toEqual([125]);
    expect(client.stats().byBucket).toEqual({ 'POST access/tokens': 1, 'GET CloudAccounts': 1, 'GET AlertRules': 2 });
    agent.assertNoPendingInterceptors();
  });
});

describe('POST is repeated only when it provably was not processed', () => {
  it('500 → outcome-unknown, sent once', async () => {
    const { service, client, clock } = await scripted([e500, ok]);
    const err = (await rejectionOf(client.request({ method: 'POST', path: '/api/v2/AlertChannels', body: { name: 'a' } }))) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.kind).toBe('outcome-unknown');
    expect(err.status).toBe(500);
    expect(err.message).toBe('POST /api/v2/AlertChannels failed (outcome-unknown): 500: Internal error');
    expect(service.calls()).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('a connection dropped after sending → outcome-unknown, sent once', async () => {
    const { service, client } = await scripted(['drop', ok]);
    const err = (await rejectionOf(client.request({ method: 'POST', path: '/api/v2/AlertRules', body: {} }))) as ApiError;
    expect(err.kind).toBe('outcome-unknown');
    expect(err.status).toBeUndefined();
    expect(service.calls()).toHaveLength(1);
  });

  it('a timeout → outcome-unknown, sent once', async () => {
    // Retries allowed: the POST must still go out only once.
    const { client, clock, attempts } = await hanging('POST', '/api/v2/AlertRules', { maxRetries: 3 });
    const err = await rejectionByTimers(client.request({ method: 'POST', path: '/api/v2/AlertRules', body: {} }));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).kind).toBe('outcome-unknown');
    expect((err as ApiError).message).toContain(`timed out after ${TIMEOUT_MS} ms`);
    expect(attempts()).toEqual([[1, 'network-error']]);
    expect(clock.sleeps).toEqual([]);
    expect(client.stats().byBucket['POST AlertRules']).toBe(1);
  });

  it('429 is repeated (rejected before processing)', async () => {
    const { service, client } = await scripted([{ status: 429, json: { message: 'Too many requests' } }, { status: 201, json: { data: { mcGuid: 'M1' } } }]);
    const res = await client.request({ method: 'POST', path: '/api/v2/AlertRules', body: {} });
    expect(res).toMatchObject({ status: 201, body: { data: { mcGuid: 'M1' } } });
    expect(service.calls()).toHaveLength(2);
  });

  it('a search POST is repeated after a 500', async () => {
    const { service, client } = await scripted([e500, ok]);
    await client.request({ method: 'POST', path: '/api/v2/AlertChannels/search', body: { filters: [] } });
    expect(service.calls()).toHaveLength(2);
  });

  it('a refused connection (ECONNREFUSED) is repeated', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('https://svc.example.net');
    pool.intercept({ path: '/api/v2/access/tokens', method: 'POST' }).reply(201, { token: 'TOKEN-mock-0001', expiresAt: '2099-01-01T00:00:00.000Z' });
    const refused = Object.assign(new Error('connect ECONNREFUSED 192.0.2.1:443'), { code: 'ECONNREFUSED' });
    pool.intercept({ path: '/api/v2/AlertChannels', method: 'POST' }).replyWithError(refused);
    pool.intercept({ path: '/api/v2/AlertChannels', method: 'POST' }).reply(201, { data: { intgGuid: 'G' } });
    const clock = fakeClock();
    const client = createClient({ baseUrl: 'https://svc.example.net', keyId: KEY_ID, secret: SECRET, dispatcher: agent, now: clock.now, sleep: clock.sleep, random: () => 0.5 });
    const res = await client.request({ method: 'POST', path: '/api/v2/AlertChannels', body: { name: 'x' } });
    expect(res.body).toEqual({ data: { intgGuid: 'G' } });
    expect(clock.sleeps).toEqual([125]);
    expect(client.stats().byBucket['POST AlertChannels']).toBe(2);
    agent.assertNoPendingInterceptors();
    await client.close();
    await agent.close();
  });

  it('a MockAgent socket error after sending a POST is outcome-unknown', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('https://svc.example.net');
    pool.intercept({ path: '/api/v2/access/tokens', method: 'POST' }).reply(201, { token: 'TOKEN-mock-0001', expiresAt: '2099-01-01T00:00:00.000Z' });
    pool.intercept({ path: '/api/v2/AlertRules', method: 'POST' }).replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    const clock = fakeClock();
    const client = createClient({ baseUrl: 'https://svc.example.net', keyId: KEY_ID, secret: SECRET, dispatcher: agent, now: clock.now, sleep: clock.sleep });
    const err = (await rejectionOf(client.request({ method: 'POST', path: '/api/v2/AlertRules', body: {} }))) as ApiError;
    expect(err.kind).toBe('outcome-unknown');
    expect(err.message).toContain('UND_ERR_SOCKET');
    await client.close();
    await agent.close();
  });

  it('a request undici refuses to send is permanent and not repeated', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get('https://svc.example.net').intercept({ path: '/api/v2/access/tokens', method: 'POST' }).reply(201, { token: 'TOKEN-mock-0001', expiresAt: '2099-01-01T00:00:00.000Z' });
    const clock = fakeClock();
    const client = createClient({ baseUrl: 'https://svc.example.net', keyId: KEY_ID, secret: SECRET, dispatcher: agent, now: clock.now, sleep: clock.sleep });
    // No interceptor for this one: MockAgent refuses it as undici refuses a bad request.
    const err = (await rejectionOf(client.request({ method: 'POST', path: '/api/v2/AlertRules', body: {} }))) as ApiError;
    expect(err.kind).toBe('permanent');
    expect(err.message).toContain('request not sent');
    expect(client.stats().byBucket['POST AlertRules']).toBe(1);
    expect(clock.sleeps).toEqual([]);
    await client.close();
    await agent.close();
  });

  it('a service that refuses connections: the token exchange is retried, then transient', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const clock = fakeClock();
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, keyId: KEY_ID, secret: SECRET, now: clock.now, sleep: clock.sleep, random: () => 0.5, maxRetries: 2 });
    cleanup.push(() => client.close());
    const err = (await rejectionOf(client.request({ method: 'POST', path: '/api/v2/AlertRules', body: {} }))) as ApiError;
    expect(err.kind).toBe('transient');
    expect(err.path).toBe('/api/v2/access/tokens');
    expect(err.message).toContain('ECONNREFUSED');
    expect(client.stats()).toEqual({ total: 3, byBucket: { 'POST access/tokens': 3 } });
    expect(clock.sleeps).toEqual([125, 250]);
  });
});

describe('DELETE after an attempt with unknown outcome', () => {
  for (const first of [e503, 'drop'] as Reply[]) {
    it(`404 on the retry after ${first === 'drop' ? 'a dropped connection' : '503'} counts as deleted`, async () => {
      const { service, client } = await scripted([first, { status: 404, json: { message: 'Not found' } }]);
      const res = await client.request({ method: 'DELETE', path: '/api/v2/AlertRules/M1' });
      expect(res).toEqual({ status: 204, body: undefined });
      expect(service.calls()).toHaveLength(2);
    });
  }

  it('404 on the first attempt is still permanent', async () => {
    const { client } = await scripted([{ status: 404, json: { message: 'Not found' } }]);
    const err = (await rejectionOf(client.request({ method: 'DELETE', path: '/api/v2/AlertRules/M1' }))) as ApiError;
    expect([err.kind, err.status]).toEqual(['permanent', 404]);
  });

  it('404 after a 429 (not processed) is still permanent', async () => {
    const { client } = await scripted([{ status: 429, text: '' }, { status: 404, json: { message: 'Not found' } }]);
    const err = (await rejectionOf(client.request({ method: 'DELETE', path: '/api/v2/AlertRules/M1' }))) as ApiError;
    expect([err.kind, err.status]).toEqual(['permanent', 404]);
  });
});

describe('429', () => {
  it('waits RateLimit-Reset seconds with a countdown, then repeats', async () => {
    const { service, client, clock, waits } = await scripted([
      { status: 429, json: { message: 'Rate limit exceeded' }, headers: { 'RateLimit-Limit': '120', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '3' } },
      { status: 200, json: { data: { ok: 1 } }, headers: { 'RateLimit-Limit': '120', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '25' } },
    ]);
    const res = await client.request({ method: 'GET', path: '/api/v2/AlertChannels' });
    expect(res.status).toBe(200);
    expect(service.calls()).toHaveLength(2);
    expect(clock.sleeps).toEqual([1000, 1000, 1000]);
    expect(waits).toEqual([
      ['GET AlertChannels', 3],
      ['GET AlertChannels', 2],
      ['GET AlertChannels', 1],
      ['GET AlertChannels', 0],
    ]);
  });

  it('without RateLimit-Reset it backs off', async () => {
    const { client, clock, waits } = await scripted([{ status: 429, text: 'slow down' }, ok]);
    await client.request({ method: 'GET', path: '/api/v2/AlertChannels' });
    expect(clock.sleeps).toEqual([125]);
    expect(waits).toEqual([]);
  });

  it('a reset beyond maxWaitSeconds ends in a transient error', async () => {
    const { service, client } = await scripted([{ status: 429, json: { message: 'Rate limit exceeded' }, headers: { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '3600' } }]);
    const err = (await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertChannels' }))) as ApiError;
    expect(err.kind).toBe('transient');
    expect(err.message).toContain('exhausted');
    expect(service.calls()).toHaveLength(1);
  });
});

