// A service that sends more than the response size limit: the CLI refuses it with a clear error
// (exit 1, no stack trace, the request, the limit and how to raise it), once (not retried). A
// hostile proxy on 127.0.0.1 stands in front of the emulator and answers the alert channel list
// itself: an endless stream, or pages that are each small but together too large. The suite uses a
// small limit; the 400 MB measurement is in test/bench/response-size.ts. The limits of a whole run
// (--max-records, --max-total-size) are refused the same way.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cli, forwardingProxy, webhookRepo } from './harness.js';

type Mode = 'endless' | 'pages' | 'pass';

async function hostileProxy(target: string): Promise<{ url: string; mode: { value: Mode }; listHits: () => number; close: () => Promise<void> }> {
  const mode = { value: 'pass' as Mode };
  let hits = 0;
  const proxy = await forwardingProxy(target, (req, res) => {
    const path = req.url ?? '';
    const list = req.method === 'GET' && /^\/api\/v2\/AlertChannels(\?|$)/.test(path);
    if (!list || mode.value === 'pass') return false;
    req.resume();
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' });
    if (mode.value === 'endless') {
      // No length, never ends: only the client's limit stops it.
      res.write('{"data":[');
      const record = Buffer.from(`{"intgGuid":"X","name":"${'n'.repeat(200)}","type":"Webhook","enabled":1,"data":{}},`);
      const pump = (): void => {
        while (!res.destroyed) if (!res.write(record)) return void res.once('drain', pump);
      };
      pump();
      return true;
    }
    // 10 KiB pages, each pointing to the next, forever.
    const page = /[?&]hostilePage=(\d+)$/.exec(path);
    const n = page ? Number(page[1]) + 1 : 1;
    const records = Array.from({ length: 40 }, (_, i) => ({ intgGuid: `P${n}_${i}`, name: `p${n}-${i}-${'x'.repeat(180)}`, type: 'Webhook', enabled: 1, data: {} }));
    res.end(JSON.stringify({ paging: { urls: { nextPage: `http://${req.headers.host}/api/v2/AlertChannels?hostilePage=${n}` } }, data: records }));
    return true;
  });
  return { ...proxy, mode, listHits: () => hits };
}

describe('a response larger than --max-response-size', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let proxy: Awaited<ReturnType<typeof hostileProxy>>;
  const cleanup: Array<() => Promise<void>> = [];
  let dir: string;
  let out: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'] });
    proxy = await hostileProxy(emu.url);
    dir = await webhookRepo(['prod'], 1, cleanup);
    out = await mkdtemp(join(tmpdir(), 'postureops-big-'));
    env = { SVC_BASE_URL: proxy.url, SVC_API_KEY_ID: emu.keyId, SVC_API_SECRET: emu.secret };
  });
  afterAll(async () => {
    for (const c of cleanup) await c();
    await rm(out, { recursive: true, force: true });
    await proxy.close();
    await emu.close();
  });

  function expectRefused(res: { code: number; stdout: string; stderr: string }, limit: string): void {
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toContain('GET /api/v2/AlertChannels');
    expect(res.stderr).toContain(`larger than ${limit}`);
    expect(res.stderr).toContain('--max-response-size');
    expect(res.stderr).toContain('POSTUREOPS_MAX_RESPONSE_BYTES');
    expect(res.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
    expect(res.stderr + res.stdout).not.toContain(emu.secret);
  }

  it('plan: an endless list is refused once, with the flag', async () => {
    proxy.mode.value = 'endless';
    const before = proxy.listHits();
    const res = await cli(['plan', dir, '--max-response-size', '64K'], { env });
    expectRefused(res, '64 KiB');
    expect(proxy.listHits() - before).toBe(1);
  });

  it('export: the same through POSTUREOPS_MAX_RESPONSE_BYTES; nothing is written', async () => {
    proxy.mode.value = 'endless';
    const target = join(out, 'export');
    const res = await cli(['export', '--out', target, '--account', 'prod'], { env: { ...env, POSTUREOPS_MAX_RESPONSE_BYTES: '100K' } });
    expectRefused(res, '100 KiB');
    await expect(rm(target)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('pages each under the limit but together over it: refused after the pages that fit', async () => {
    proxy.mode.value = 'pages';
    const before = proxy.listHits();
    const res = await cli(['plan', dir, '--max-response-size', '64K'], { env });
    expectRefused(res, '64 KiB');
    expect(res.stderr).toContain('of the earlier pages of this list');
    // About 10 KiB a page: 7 pages reach 64 KiB; never the 100 the page count allows.
    expect(proxy.listHits() - before).toBeLessThanOrEqual(8);
  });

  function expectRunLimit(res: { code: number; stdout: string; stderr: string }, setting: string, variable: string): void {
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toContain('GET /api/v2/AlertChannels');
    expect(res.stderr).toContain('in one run (all lists of all accounts together)');
    expect(res.stderr).toContain(setting);
    expect(res.stderr).toContain(variable);
    expect(res.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
    expect(res.stderr + res.stdout).not.toContain(emu.secret);
  }

  it('records of a run past POSTUREOPS_MAX_RECORDS: refused at the page that passes it', async () => {
    proxy.mode.value = 'pages';
    const before = proxy.listHits();
    const res = await cli(['plan', dir], { env: { ...env, POSTUREOPS_MAX_RECORDS: '100' } });
    expectRunLimit(res, '--max-records N', 'POSTUREOPS_MAX_RECORDS=N');
    expect(res.stderr).toContain('pass 100 records');
    // 40 records a page: the third passes 100.
    expect(proxy.listHits() - before).toBe(3);
  });

  it('bytes of a run past --max-total-size: refused, each page within the response limit', async () => {
    proxy.mode.value = 'pages';
    const res = await cli(['plan', dir, '--max-total-size', '24K'], { env });
    expectRunLimit(res, '--max-total-size SIZE', 'POSTUREOPS_MAX_TOTAL_BYTES=SIZE');
    expect(res.stderr).toContain('pass 24 KiB');
  });

  it('a bad count is refused before any request, naming what is expected', async () => {
    proxy.mode.value = 'pass';
    const res = await cli(['plan', dir, '--max-records', 'lots'], { env });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('--max-records "lots" is not a count: expected a whole number above 0');
  });

  it('a bad size is refused before any request, naming what is expected', async () => {
    proxy.mode.value = 'pass';
    const res = await cli(['plan', dir, '--max-response-size', 'lots'], { env });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('--max-response-size "lots" is not a size: expected a number of bytes, or with a suffix K, M or G');
  });

  it('within the limit, the same repository plans', async () => {
    proxy.mode.value = 'pass';
    const res = await cli(['plan', dir, '--max-response-size', '1M'], { env });
    expect(res.code, res.stderr).toBe(0);
  });
});
