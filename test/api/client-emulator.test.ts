// The client against the emulator on 127.0.0.1: its token buckets, RateLimit-* headers and faults.
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { ApiError, type RequestLogEntry } from '../../src/api/types.js';
import { manualClock, startEmulator } from '../../src/emulator/index.js';
import { virtualTime } from './helpers.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function setup(emulatorOptions: { rateLimit?: number; faults?: number; faultSeed?: number }, concurrency = 4, maxRetries = 4) {
  // One clock for both sides: the client's waits move the emulator's buckets.
  const clock = manualClock(Date.UTC(2026, 2, 1));
  const emulator = await startEmulator({ accounts: ['prod'], clock, ...emulatorOptions });
  const log: RequestLogEntry[] = [];
  const waited: number[] = [];
  const sleep = virtualTime(clock);
  const client = createClient({
    baseUrl: emulator.url,
    keyId: emulator.keyId,
    secret: emulator.secret,
    concurrency,
    maxRetries,
    now: clock.now,
    sleep: (ms) => {
      waited.push(ms);
      return sleep(ms);
    },
    random: () => 0.5,
    log: (e) => log.push(e),
  });
  cleanup.push(() => emulator.close(), () => client.close());
  return { clock, emulator, client, log, waited };
}

describe('client against the emulator', () => {
  it('a run far over the bucket size finishes without a 429, sequentially', async () => {
    const { client, log, waited } = await setup({ rateLimit: 5 });
    for (let i = 0; i < 16; i++) {
      const res = await client.request({ method: 'GET', path: '/api/v2/AlertChannels', account: 'prod' });
      expect(res.status).toBe(200);
    }
    expect(log.filter((e) => e.status === 429)).toEqual([]);
    expect(waited.length).toBeGreaterThan(0);
    const budget = client.budget().find((b) => b.bucket === 'GET AlertChannels');
    expect(budget?.limit).toBe(5);
  });

  for (const [rateLimit, requests, concurrency] of [
    [6, 20, 4],
    [120, 300, 8],
  ]) {
    it(`and with requests in parallel (${requests} requests, ${concurrency} at a time, ${rateLimit}/h)`, async () => {
      const { client, log } = await setup({ rateLimit }, concurrency);
      const results = await Promise.all(
        Array.from({ length: requests }, (_, i) =>
          i % 3 === 0
            ? client.request({ method: 'POST', path: '/api/v2/AlertRules/search', account: 'prod', body: { filters: [] } })
            : client.request({ method: 'GET', path: '/api/v2/AlertRules', account: 'prod' }),
        ),
      );
      expect(results.every((r) => r.status === 200)).toBe(true);
      expect(log.filter((e) => e.status === 429)).toEqual([]);
      // Nothing was sent twice: every entry is a first attempt.
      expect(log.filter((e) => e.attempt > 1)).toEqual([]);
    });
  }

  it('reads come through injected faults; creates fail only as outcome-unknown or succeed', async () => {
    // Faults come in runs (this seed has five in a row): allow more retries than the default.
    const { client, log } = await setup({ faults: 0.3, faultSeed: 7 }, 4, 8);
    for (let i = 0; i < 20; i++) {
      const res = await client.request({ method: 'GET', path: '/api/v2/CloudAccounts', account: 'prod' });
      expect(res.status).toBe(200);
    }
    expect(log.some((e) => e.status !== 200 && e.status !== 201)).toBe(true);
    const kinds = new Set<string>();
    for (let i = 0; i < 20; i++) {
      try {
        await client.request({
          method: 'POST',
          path: '/api/v2/AlertChannels',
          account: 'prod',
          body: { name: `hook-${i}`, type: 'Webhook', enabled: 1, data: { webhookUrl: `https://hooks.example.net/${i}` } },
        });
        kinds.add('ok');
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        kinds.add((err as ApiError).kind);
      }
    }
    expect([...kinds].every((k) => k === 'ok' || k === 'outcome-unknown')).toBe(true);
    expect(kinds.has('ok')).toBe(true);
  });
});
