// The budget memory cannot be poisoned (issue 29): a 429 without rate-limit headers (a proxy's) or
// with figures the seed's rules cannot produce is a wait, never a remembered limit; a memory file
// holding such figures, or old ones, or not the expected shape, is ignored; and a refusal that rests
// only on remembered figures says so and names the file. The CLI against the emulator (behind a
// proxy on 127.0.0.1 for the odd 429s), with a virtual clock where the client backs off.

import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { BucketBudget } from '../../src/api/types.js';
import { cli, forwardingProxy, serviceEnv, virtualClient, webhookRepo } from './harness.js';

let emu: RunningEmulator;
let dir: string;
const cleanup: Array<() => Promise<void>> = [];
const { clientOptions, reset, useClock } = virtualClient();

beforeAll(async () => {
  emu = await startEmulator({ accounts: ['bm1', 'bm2'], rateLimit: 100_000 });
  dir = await webhookRepo(['bm1', 'bm2'], 1, cleanup);
});
afterEach(() => reset());
afterAll(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
  await emu.close();
});

async function cacheDir(): Promise<string> {
  const cache = await mkdtemp(join(tmpdir(), 'postureops-cache-'));
  cleanup.push(() => rm(cache, { recursive: true, force: true }));
  return cache;
}

/** The one memory file in `cache`, and what it holds. */
async function memoryFile(cache: string): Promise<{ file: string; buckets: BucketBudget[] }> {
  const [name] = (await readdir(cache)).filter((n) => n.startsWith('rate-limits-'));
  const file = join(cache, name);
  return { file, buckets: (JSON.parse(await readFile(file, 'utf8')) as { buckets: BucketBudget[] }).buckets };
}

/** A proxy that answers the first `times` channel reads with `status` and these headers only. */
async function oddProxy(times: number, headers: Record<string, string>): Promise<{ url: string; answered: () => number; pass: () => void }> {
  let answered = 0;
  let left = times;
  const proxy = await forwardingProxy(emu.url, (req, res) => {
    if (answered >= left || !req.url?.includes('/AlertChannels')) return false;
    answered++;
    res.writeHead(429, { 'content-type': 'text/html', ...headers });
    res.end('<html><body>Too Many Requests</body></html>');
    return true;
  });
  cleanup.push(proxy.close);
  return { url: proxy.url, answered: () => answered, pass: () => (left = answered) };
}

const plausible = (b: BucketBudget) => b.limit >= 1 && b.remaining >= 0 && b.remaining <= b.limit && b.resetSeconds >= 0 && b.resetSeconds <= 3600;

describe('a 429 the service rules could not produce', () => {
  it.each([
    ['without rate-limit headers (a proxy)', {}],
    ['with RateLimit-Reset: 999999', { 'ratelimit-reset': '999999' }],
    ['with RateLimit-Limit: 0 and RateLimit-Remaining: 0', { 'ratelimit-limit': '0', 'ratelimit-remaining': '0' }],
    ['with RateLimit-Limit: 0 and RateLimit-Reset: 999999', { 'ratelimit-limit': '0', 'ratelimit-reset': '999999' }],
  ])('%s is a wait with backoff; nothing of it is remembered; the next run with --max-duration is not blocked', async (_what, headers) => {
    useClock();
    const cache = await cacheDir();
    const proxy = await oddProxy(2, headers);
    const env = { ...serviceEnv(emu), SVC_BASE_URL: proxy.url, POSTUREOPS_CACHE_DIR: cache };
    const first = await cli(['plan', dir], { env, clientOptions });
    expect(first.code, first.stderr).toBe(0);
    expect(proxy.answered()).toBe(2);
    const { buckets } = await memoryFile(cache);
    expect(buckets.length).toBeGreaterThan(0);
    expect(buckets.filter((b) => !plausible(b))).toEqual([]);
    expect(buckets.map((b) => b.limit)).not.toContain(0);

    const next = await cli(['plan', dir, '--max-duration', '1m'], { env, clientOptions });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('refused');
  });
});

describe('a proxy that answers 429 without headers to every read of a bucket', () => {
  it('fails the run that met it, and leaves nothing that blocks the next one', async () => {
    useClock();
    const cache = await cacheDir();
    const proxy = await oddProxy(Infinity, {});
    const env = { ...serviceEnv(emu), SVC_BASE_URL: proxy.url, POSTUREOPS_CACHE_DIR: cache };
    const met = await cli(['plan', dir], { env, clientOptions });
    expect(met.code).not.toBe(0);
    expect(met.stderr).toContain('429');
    // Backed off and retried, not given up at once.
    expect(proxy.answered()).toBeGreaterThan(1);
    const { buckets } = await memoryFile(cache);
    expect(buckets.filter((b) => !plausible(b))).toEqual([]);
    expect(buckets.some((b) => b.bucket.includes('AlertChannels'))).toBe(false);
    // The proxy lets everything through now; the same address, the same memory: not refused.
    proxy.pass();
    const next = await cli(['plan', dir, '--max-duration', '1m'], { env, clientOptions });
    expect(next.code, next.stderr).toBe(0);
  });
});

describe('a poisoned memory file', () => {
  /** A cache whose memory file (for the emulator's address and key) holds `text`. */
  async function poisoned(text: (now: number) => string): Promise<{ env: Record<string, string>; file: string }> {
    const cache = await cacheDir();
    const env = { ...serviceEnv(emu), POSTUREOPS_CACHE_DIR: cache };
    expect((await cli(['plan', dir], { env })).code).toBe(0);
    const { file } = await memoryFile(cache);
    await writeFile(file, text(Date.now()));
    return { env, file };
  }

  const drained = (now: number, over: Partial<BucketBudget>) =>
    JSON.stringify({ buckets: ['GET AlertChannels', 'POST AlertChannels/search', 'POST access/tokens'].map((bucket) => ({ bucket, limit: 120, remaining: 0, resetSeconds: 3000, observedAt: now, ...over })) });

  it.each<[string, (now: number) => string]>([
    ['a limit of 0 (what a header-less 429 used to leave)', (now) => drained(now, { limit: 0 })],
    ['a Reset of 999999 s', (now) => drained(now, { resetSeconds: 999_999 })],
    ['a negative remaining', (now) => drained(now, { remaining: -5 })],
    ['a remaining above the limit', (now) => drained(now, { limit: 1, remaining: 2, resetSeconds: 3600 })],
    ['figures older than an hour', (now) => drained(now, { observedAt: now - 3_601_000 })],
    ['figures seen in the future', (now) => drained(now, { observedAt: now + 86_400_000 })],
    ['numbers that are not finite', (now) => drained(now, {}).replaceAll('"limit":120', '"limit":1e999')],
    ['a bucket name that is not one', (now) => drained(now, {}).replaceAll('"bucket":"', '"bucket":"\\u001b[2J')],
    ['another shape', () => JSON.stringify([{ bucket: 'GET AlertChannels', limit: 0 }])],
    ['a huge file', (now) => drained(now, {}) + ' '.repeat(300 * 1024)],
    ['too many buckets', (now) => JSON.stringify({ buckets: Array.from({ length: 1001 }, () => JSON.parse(drained(now, {})).buckets[0]) })],
  ])('holding %s does not block the next run with --max-duration, and is healed', async (_what, text) => {
    const { env, file } = await poisoned(text);
    const before = emu.requestCount();
    const r = await cli(['plan', dir, '--max-duration', '1m'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('refused');
    expect(emu.requestCount()).toBeGreaterThan(before);
    // Rewritten from what this run saw: the poison is gone.
    const healed = JSON.parse(await readFile(file, 'utf8')) as { buckets: BucketBudget[] };
    expect(healed.buckets.filter((b) => !plausible(b))).toEqual([]);
  });

  it('a refusal that rests only on remembered figures says so and names the file; without it the run goes', async () => {
    const { env, file } = await poisoned((now) => drained(now, {}));
    const before = emu.requestCount();
    const r = await cli(['plan', dir, '--max-duration', '1m'], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('refused by --max-duration 1 min: the run would take about');
    expect(r.stderr).toContain(`nothing was sent (this estimate rests only on rate-limit figures an earlier run saw 0 s ago, kept in ${file}: they expire an hour after they were seen; if no other run uses this key meanwhile, delete that file and run again)`);
    expect(emu.requestCount()).toBe(before);
    await rm(file);
    const again = await cli(['plan', dir, '--max-duration', '1m'], { env });
    expect(again.code, again.stderr).toBe(0);
  });
});
