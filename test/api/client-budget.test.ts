import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/types.js';
import { KEY_ID, SECRET, fakeClock, rejectionOf, startService, type FakeClock, type Reply, type SeenRequest } from './helpers.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

/**
 * A service that enforces a bucket of `size` requests per window of `windowSeconds` (by the fake
 * clock), per method and first path segment, and answers 429 when it is empty.
 */
function windowedLimiter(clock: FakeClock, size: number, windowSeconds: number) {
  const windows = new Map<string, { left: number; endsAt: number }>();
  let rejected = 0;
  const handle = (req: SeenRequest): Reply => {
    const key = `${req.method} ${req.url.split('/')[3]}`;
    let w = windows.get(key);
    if (!w || clock.t >= w.endsAt) {
      w = { left: size, endsAt: clock.t + windowSeconds * 1000 };
      windows.set(key, w);
    }
    const reset = String(Math.ceil((w.endsAt - clock.t) / 1000));
    if (w.left === 0) {
      rejected++;
      return { status: 429, json: { message: 'Rate limit exceeded' }, headers: { 'RateLimit-Limit': String(size), 'RateLimit-Remaining': '0', 'RateLimit-Reset': reset } };
    }
    w.left--;
    return { status: 200, json: { data: [] }, headers: { 'RateLimit-Limit': String(size), 'RateLimit-Remaining': String(w.left), 'RateLimit-Reset': reset } };
  };
  return { handle, rejected: () => rejected };
}

describe('rate-limit budget', () => {
  it('tracks RateLimit-* per bucket, token exchange included', async () => {
    const clock = fakeClock();
    const service = await startService({
      now: clock.now,
      handle: (req) => ({
        status: 200,
        json: { data: [] },
        headers: { 'RateLimit-Limit': '120', 'RateLimit-Remaining': req.method === 'GET' ? '117' : '50', 'RateLimit-Reset': '42' },
      }),
    });
    const client = createClient({ baseUrl: service.baseUrl, keyId: KEY_ID, secret: SECRET, now: clock.now, sleep: clock.sleep });
    cleanup.push(() => service.close(), () => client.close());
    await client.request({ method: 'GET', path: '/api/v2/AlertChannels/G1' });
    await client.request({ method: 'POST', path: '/api/v2/AlertRules', body: {} });
    expect(client.budget()).toEqual([
      { bucket: 'GET AlertChannels', limit: 120, remaining: 117, resetSeconds: 42, observedAt: clock.t },
      { bucket: 'POST AlertRules', limit: 120, remaining: 50, resetSeconds: 42, observedAt: clock.t },
    ]);
  });

  it('waits before sending into an empty bucket, with an onWait countdown, and never meets a 429', async () => {
    const clock = fakeClock();
    const limiter = windowedLimiter(clock, 2, 5);
    const service = await startService({ now: clock.now, handle: limiter.handle });
    const waits: Array<[string, number]> = [];
    const client = createClient({ baseUrl: service.baseUrl, keyId: KEY_ID, secret: SECRET, now: clock.now, sleep: clock.sleep, onWait: (b, s) => waits.push([b, s]) });
    cleanup.push(() => service.close(), () => client.close());
    await client.request({ method: 'GET', path: '/api/v2/AlertRules' });
    await client.request({ method: 'GET', path: '/api/v2/AlertRules' });
    expect(waits).toEqual([]);
    await client.request({ method: 'GET', path: '/api/v2/AlertRules' });
    expect(waits).toEqual([5, 4, 3, 2, 1, 0].map((s) => ['GET AlertRules', s]));
    expect(clock.sleeps).toEqual([1000, 1000, 1000, 1000, 1000]);
    expect(limiter.rejected()).toBe(0);
  });

  it('a long run of requests finishes without a single 429', async () => {
    const clock = fakeClock();
    const limiter = windowedLimiter(clock, 4, 30);
    const service = await startService({ now: clock.now, handle: limiter.handle });
    const client = createClient({ baseUrl: service.baseUrl, keyId: KEY_ID, secret: SECRET, now: clock.now, sleep: clock.sleep });
    cleanup.push(() => service.close(), () => client.close());
    for (let i = 0; i < 25; i++) {
      await client.request({ method: i % 2 === 0 ? 'GET' : 'DELETE', path: `/api/v2/AlertChannels/G${i}` });
    }
    expect(limiter.rejected()).toBe(0);
    expect(service.calls()).toHaveLength(25);
    // 25 requests through buckets of 4 per 30 s cannot go without waiting, and each wait step is at most a second.
    expect(clock.sleeps.length).toBeGreaterThan(0);
    expect(Math.max(...clock.sleeps)).toBeLessThanOrEqual(1000);
  });

  it('refuses to wait longer than maxWaitSeconds: a transient error naming the reset', async () => {
    const clock = fakeClock();
    const service = await startService({
      now: clock.now,
      handle: () => ({ status: 200, json: { data: [] }, headers: { 'RateLimit-Limit': '120', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1200' } }),
    });
    const client = createClient({ baseUrl: service.baseUrl, keyId: KEY_ID, secret: SECRET, now: clock.now, sleep: clock.sleep, maxWaitSeconds: 600 });
    cleanup.push(() => service.close(), () => client.close());
    await client.request({ method: 'GET', path: '/api/v2/CloudAccounts' });
    const err = (await rejectionOf(client.request({ method: 'GET', path: '/api/v2/CloudAccounts' }))) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.kind).toBe('transient');
    expect(err.message).toContain('GET CloudAccounts exhausted');
    expect(err.message).toContain('1200 s');
    expect(err.message).toContain(new Date(clock.t + 1_200_000).toISOString());
    expect(service.calls()).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    // Other buckets are not held up.
    await expect(client.request({ method: 'GET', path: '/api/v2/AlertRules' })).resolves.toMatchObject({ status: 200 });
  });
});

describe('stats', () => {
  it('counts every request sent: token exchange, retries, renewals, per bucket', async () => {
    const clock = fakeClock();
    let n = 0;
    const service = await startService({
      now: clock.now,
      handle: (req, svc) => {
        n++;
        if (n === 1) return { status: 503, text: 'busy' };
        if (req.method === 'PATCH' && req.headers.authorization === `Bearer ${svc.tokensIssued[0]}`) return { status: 403, json: { message: 'expired' } };
        return { status: 200, json: {} };
      },
    });
    const client = createClient({ baseUrl: service.baseUrl, keyId: KEY_ID, secret: SECRET, now: clock.now, sleep: clock.sleep, random: () => 0 });
    cleanup.push(() => service.close(), () => client.close());
    expect(client.stats()).toEqual({ total: 0, byBucket: {} });
    await client.request({ method: 'GET', path: '/api/v2/AlertChannels' }); // 503 then 200
    await client.request({ method: 'GET', path: '/api/v2/AlertChannels/G1' });
    await client.request({ method: 'PATCH', path: '/api/v2/AlertChannels/G1', body: { enabled: 1 } }); // 403, renew, 200
    expect(client.stats()).toEqual({
      total: 7,
      byBucket: { 'POST access/tokens': 2, 'GET AlertChannels': 3, 'PATCH AlertChannels': 2 },
    });
    expect(service.requests).toHaveLength(7);
  });
});

/**
 * Holds replies so that a bounded client is seen at its bound whatever the machine's speed: the
 * first request (the budget's probe, which goes alone) is answered at once, the others in batches
 * of `size` (the last one smaller), each released when complete. A client sending more than `size`
 * at once shows it while a batch is held, and during one more turn before its release.
 */
function heldInBatches(size: number, total: number, reply: Reply): () => Reply | Promise<Reply> {
  let arrived = 0;
  let released = 1;
  let held: Array<(r: Reply) => void> = [];
  return () => {
    if (++arrived === 1) return reply;
    return new Promise<Reply>((resolve) => {
      held.push(resolve);
      if (held.length === Math.min(size, total - released)) {
        const batch = held;
        held = [];
        released += batch.length;
        setTimeout(() => batch.forEach((r) => r(reply)), 5);
      }
    });
  };
}

describe('concurrency', () => {
  it('never has more requests in flight than `concurrency`', async () => {
    const clock = fakeClock();
    const service = await startService({ now: clock.now, handle: heldInBatches(3, 12, { status: 200, json: { data: [] } }) });
    // A dispatcher with room for many connections: the bound must come from the client.
    const agent = new Agent({ connections: 32 });
    const client = createClient({ baseUrl: service.baseUrl, keyId: KEY_ID, secret: SECRET, now: clock.now, sleep: clock.sleep, dispatcher: agent, concurrency: 3 });
    cleanup.push(() => service.close(), () => agent.close(), () => client.close());
    await Promise.all(Array.from({ length: 12 }, (_, i) => client.request({ method: 'GET', path: `/api/v2/AlertRules/M${i}` })));
    expect(service.calls()).toHaveLength(12);
    expect(service.maxInFlight).toBe(3);
  });

  it('defaults to 4 with its own keep-alive agent', async () => {
    const clock = fakeClock();
    const service = await startService({ now: clock.now, handle: heldInBatches(4, 10, { status: 200, json: {} }) });
    const client = createClient({ baseUrl: service.baseUrl, keyId: KEY_ID, secret: SECRET, now: clock.now, sleep: clock.sleep });
    cleanup.push(() => service.close(), () => client.close());
    await Promise.all(Array.from({ length: 10 }, () => client.request({ method: 'GET', path: '/api/v2/CloudAccounts' })));
    expect(service.maxInFlight).toBe(4);
  });
});
