// Interruption and a dead service as the client sees them: the stop signal ends waits at once, the
// abort signal cuts requests in flight, and refused connections in a row end every request at once.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { RequestInterrupted, ServiceUnreachable, type RequestLogEntry } from '../../src/api/types.js';
import { KEY_ID, SECRET, fakeClock, rejectionOf, startService, type Reply } from './helpers.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

const MOCK_ORIGIN = 'https://svc.example.net';

const drained = (status: number): Reply => ({ status, json: { data: [] }, headers: { 'RateLimit-Limit': '6', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '600' } });

/** An address where nothing listens: every connection is refused. */
async function deadAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('client interruption', () => {
  it('the stop signal ends a rate-limit wait at once; the waiting request is not sent', async () => {
    const service = await startService({ handle: () => drained(200) });
    cleanup.push(() => service.close());
    const clock = fakeClock();
    const stop = new AbortController();
    const waits: number[] = [];
    const client = createClient({
      baseUrl: service.baseUrl,
      keyId: KEY_ID,
      secret: SECRET,
      now: clock.now,
      sleep: clock.sleep,
      stopSignal: stop.signal,
      onWait: (_bucket, left) => {
        waits.push(left);
        if (waits.length === 3) stop.abort('SIGINT');
      },
    });
    cleanup.push(() => client.close());
    await client.request({ method: 'GET', path: '/api/v2/AlertChannels' });
    const start = clock.t;
    const err = await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertChannels' }));
    expect(err).toBeInstanceOf(RequestInterrupted);
    expect((err as RequestInterrupted).mayHaveLanded).toBe(false);
    expect(service.calls()).toHaveLength(1);
    // Three countdown steps of a 600 s wait, then the end of the countdown (0) at the signal.
    expect(waits).toEqual([600, 599, 598, 0]);
    expect(clock.t - start).toBeLessThanOrEqual(3000);
  });

  it('the stop signal ends the backoff before a retry: the retry is not sent', async () => {
    const service = await startService({ handle: () => ({ status: 503, json: { message: 'busy' } }) });
    cleanup.push(() => service.close());
    const clock = fakeClock();
    const stop = new AbortController();
    const log: RequestLogEntry[] = [];
    const client = createClient({
      baseUrl: service.baseUrl,
      keyId: KEY_ID,
      secret: SECRET,
      now: clock.now,
      sleep: clock.sleep,
      random: () => 0.9,
      stopSignal: stop.signal,
      log: (e) => {
        log.push(e);
        if (e.status === 503) stop.abort('SIGTERM');
      },
    });
    cleanup.push(() => client.close());
    const err = await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertRules' }));
    expect(err).toBeInstanceOf(RequestInterrupted);
    // A 503 to a GET may have been processed: the client does not claim otherwise.
    expect((err as RequestInterrupted).mayHaveLanded).toBe(true);
    expect(service.calls()).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('the abort signal cuts a request in flight, and nothing more is sent', async () => {
    const service = await startService({ handle: (req) => (req.method === 'POST' ? 'hang' : { status: 200, json: { data: [] } }) });
    cleanup.push(() => service.close());
    const abort = new AbortController();
    const client = createClient({ baseUrl: service.baseUrl, keyId: KEY_ID, secret: SECRET, abortSignal: abort.signal });
    cleanup.push(() => client.close());
    await client.request({ method: 'GET', path: '/api/v2/AlertChannels' });
    const pending = client.request({ method: 'POST', path: '/api/v2/AlertChannels', body: { name: 'x' } });
    while (service.calls().length < 2) await new Promise((r) => setImmediate(r));
    abort.abort('SIGINT');
    const err = await rejectionOf(pending);
    expect(err).toBeInstanceOf(RequestInterrupted);
    expect((err as RequestInterrupted).mayHaveLanded).toBe(true);
    const after = await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertChannels' }));
    expect(after).toBeInstanceOf(RequestInterrupted);
    expect((after as RequestInterrupted).mayHaveLanded).toBe(false);
    expect(service.calls()).toHaveLength(2);
  });
});

describe('a dead service', () => {
  it('gives up after a few refused connections in a row, naming the address, within seconds', async () => {
    const address = await deadAddress();
    const clock = fakeClock();
    const log: RequestLogEntry[] = [];
    const client = createClient({ baseUrl: address, keyId: KEY_ID, secret: SECRET, now: clock.now, sleep: clock.sleep, random: () => 0.99, log: (e) => log.push(e) });
    cleanup.push(() => client.close());
    const err = await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertChannels' }));
    expect(err).toBeInstanceOf(ServiceUnreachable);
    expect((err as Error).message).toContain(address);
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect(log).toHaveLength(4);
    // Backoff before the 2nd, 3rd and 4th attempt only: 250 + 500 + 1000 ms at most.
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThan(2000);
    // Later requests fail at once, without another attempt.
    expect(await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertRules' }))).toBe(err);
    expect(log).toHaveLength(4);
  });

  it('counts refusals across requests, and an answer in between resets the count', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    cleanup.push(() => agent.close());
    const pool = agent.get(MOCK_ORIGIN);
    const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    pool.intercept({ path: '/api/v2/access/tokens', method: 'POST' }).reply(201, { token: 'TOKEN-mock-0001', expiresAt: '2099-01-01T00:00:00.000Z' });
    pool.intercept({ path: '/api/v2/AlertChannels', method: 'GET' }).replyWithError(refused()).times(3);
    pool.intercept({ path: '/api/v2/AlertChannels', method: 'GET' }).reply(200, { data: [] });
    pool.intercept({ path: '/api/v2/AlertChannels', method: 'GET' }).replyWithError(refused()).times(3);
    pool.intercept({ path: '/api/v2/AlertRules', method: 'GET' }).replyWithError(refused()).times(5);
    const clock = fakeClock();
    const client = createClient({ baseUrl: MOCK_ORIGIN, keyId: KEY_ID, secret: SECRET, dispatcher: agent, now: clock.now, sleep: clock.sleep, maxRetries: 3 });
    cleanup.push(() => client.close());
    // Three refusals, then the answer on the fourth attempt.
    await client.request({ method: 'GET', path: '/api/v2/AlertChannels' });
    // Three more (the fourth attempt finds no reply: a client fault, which neither counts nor resets).
    const second = await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertChannels' }));
    expect(second).not.toBeInstanceOf(ServiceUnreachable);
    // One more refusal makes four in a row.
    const plain = await rejectionOf(client.request({ method: 'GET', path: '/api/v2/AlertRules' }));
    expect(plain).toBeInstanceOf(ServiceUnreachable);
    expect((plain as Error).message).toContain(MOCK_ORIGIN);
  });
});
