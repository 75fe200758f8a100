// Pre-flight through the CLI: before the first request, the run's requests and the wait the budget
// imposes; --max-duration refuses a run that cannot finish in time, and sends nothing.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cli, serviceEnv, virtualClient, webhookRepo } from './harness.js';

async function repository(n: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'postureops-preflight-'));
  const accounts = Array.from({ length: n }, (_, i) => `acct-${String(i).padStart(3, '0')}`);
  await writeFile(join(dir, 'postureops.yaml'), `accounts:\n${accounts.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: ${accounts[0]}\n`);
  await writeFile(
    join(dir, 'alerts.yaml'),
    'kind: AlertChannel\nname: hook\naccount: "*"\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/a\n---\n' +
      'kind: AlertRule\nname: critical\naccount: "*"\nspec:\n  channels: [hook]\n  severity: [critical]\n',
  );
  return dir;
}

describe('plan --max-duration', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let big: string;
  let small: string;
  let cache: string;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['acct-000', 'acct-001'] });
    [big, small, cache] = await Promise.all([repository(500), repository(2), mkdtemp(join(tmpdir(), 'postureops-cache-'))]);
  });

  afterAll(async () => {
    await emu.close();
    await Promise.all([big, small, cache].map((d) => rm(d, { recursive: true, force: true })));
  });

  it('refuses a 500-account plan that needs more than 10 minutes, with the estimate, before any request', async () => {
    const before = emu.requestCount();
    // A cache of its own: what another test's run remembered of the buckets must not move the estimate.
    const own = await mkdtemp(join(tmpdir(), 'postureops-cache-'));
    const res = await cli(['plan', big, '--max-duration', '10m'], { env: { ...serviceEnv(emu), POSTUREOPS_CACHE_DIR: own } });
    await rm(own, { recursive: true, force: true });
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('Pre-flight (read): 1501 requests in 7 rate-limit buckets; about 1 h 6 min of waiting for rate limits');
    expect(res.stderr).toContain('refused by --max-duration 10 min: the run would take about 1 h 6 min; nothing was sent');
    expect(res.stdout).toBe('');
    expect(emu.requestCount()).toBe(before);
  });

  it('runs a plan that fits, and says so before it starts', async () => {
    const res = await cli(['plan', small, '--max-duration', '10m', '--format', 'json'], { env: { ...serviceEnv(emu), POSTUREOPS_CACHE_DIR: cache } });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('Pre-flight (read): 7 requests in ');
    expect(res.stderr).toContain('the budget allows them all now');
    expect(JSON.parse(res.stdout).summary.create).toBe(4);
  });

  it('a saved plan is applied whole: --shard and --changed-since are refused with it (exit 1)', async () => {
    for (const flag of [['--shard', '1/2'], ['--changed-since', 'main']]) {
      const res = await cli(['apply', small, '--plan', join(small, 'none.json'), ...flag], { env: serviceEnv(emu) });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`${flag[0]} narrows a new plan; a saved plan is applied whole (plan it with ${flag[0]})`);
    }
  });

  it('refuses a duration it cannot read, exit 1', async () => {
    const res = await cli(['plan', small, '--max-duration', 'soon'], { env: serviceEnv(emu) });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('expected a duration such as 10m, 2h, 1h30m, 90s or a number of seconds');
  });
});

describe('pre-flight from the budget the service reported', () => {
  const { clientOptions, reset, useClock } = virtualClient();
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    reset();
    while (cleanup.length > 0) await cleanup.pop()!();
  });

  it('a plan right after another knows the buckets are drained, says how long it will wait, and shows the time left as it waits', async () => {
    const clock = useClock();
    // 6 requests an hour per functionality: 20 accounts' channel lists are 8 beyond the 12 of the list and its search.
    const accounts = Array.from({ length: 20 }, (_, i) => `acct-${String(i).padStart(3, '0')}`);
    const emu = await startEmulator({ accounts, rateLimit: 6, clock });
    cleanup.push(() => emu.close());
    const dir = await webhookRepo(accounts, 1, cleanup);
    const cache = await mkdtemp(join(tmpdir(), 'postureops-cache-'));
    cleanup.push(() => rm(cache, { recursive: true, force: true }));
    const env = { ...serviceEnv(emu), POSTUREOPS_CACHE_DIR: cache };

    // Without any report yet, buckets are taken to be full at 120: no wait foreseen.
    const first = await cli(['plan', dir, '--max-wait', '7200'], { env, clientOptions });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('Pre-flight');

    const before = clock.now();
    const second = await cli(['plan', dir, '--max-wait', '7200'], { env, clientOptions });
    expect(second.code, second.stderr).toBe(0);
    // Channel lists only, 20 over the list and its search: channels cannot be replaced and prune is
    // off, so no delete needs the rules that route to them (the in-use check) read.
    const line = /Pre-flight \(read\): 21 requests in 3 rate-limit buckets; about (\d+) h (\d+) min of waiting for rate limits \(GET AlertChannels \+ POST AlertChannels\/search: 20 requests at 12 an hour\)/.exec(second.stderr);
    expect(line, second.stderr).not.toBeNull();
    const estimated = Number(line![1]) * 3600 + Number(line![2]) * 60;
    const waited = (clock.now() - before) / 1000;
    expect(Math.abs(estimated - waited)).toBeLessThanOrEqual(0.15 * waited);
    // The reading phase's lines carry the wait and the run's time left by the budget model.
    expect(second.stderr).toMatch(/^Reading live state of 20 accounts: \d+\/20 done, .* elapsed, about 1h \d+m \d+s left · rate limit: waiting: GET AlertChannels refills 1 request every 10 min, next request in/m);
    expect(second.stderr).not.toMatch(/^rate limit:/m);
  });
});
