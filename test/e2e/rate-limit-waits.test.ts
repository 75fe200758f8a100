// Issue 11, item 2, through the real CLI against the emulator: the plan's estimate for a bucket the
// last apply drained follows the refill rate the service announced (checked against the time the
// next apply really waits), and a long wait in a log that is not a terminal takes a few lines.
// These applies count requests per rate-limit bucket exactly, so they run with --no-lease (the
// lease's own requests would shift the arithmetic); test/e2e/apply-lease.test.ts covers the lease.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type ManualClock } from '../../src/emulator/index.js';
import { cli as runCli, oneLine, serviceEnv, virtualClient, webhookRepo } from './harness.js';

/** The client the CLI creates gets this test's virtual clock, and the test sees its waits and requests. */
const { clientOptions, reset, useClock } = virtualClient();
/** The real CLI, in-process, with the client options above. */
const cli = (args: string[], opts: Parameters<typeof runCli>[1] = {}) => runCli(args, { ...opts, clientOptions });

type Emu = Awaited<ReturnType<typeof startEmulator>>;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  reset();
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function emulator(clock: ManualClock, opts: { accounts: string[]; rateLimit?: number }): Promise<Emu> {
  const emu = await startEmulator({ ...opts, clock });
  cleanup.push(() => emu.close());
  return emu;
}

const repo = (accounts: string[], channels: number): Promise<string> => webhookRepo(accounts, channels, cleanup);
const virtualClock = useClock;

const envOf = serviceEnv;

describe('the estimate for a drained bucket', () => {
  it('right after an apply drained a bucket, plan estimates the next apply within 10 % of the wait it really has', async () => {
    const clock = virtualClock();
    // 5 requests per hour: one every 12 minutes once drained.
    const emu = await emulator(clock, { accounts: ['prod'], rateLimit: 5 });
    const dir = await repo(['prod'], 12);
    const cache = await mkdtemp(join(tmpdir(), 'postureops-cache-'));
    cleanup.push(() => rm(cache, { recursive: true, force: true }));
    const env = { ...envOf(emu), POSTUREOPS_CACHE_DIR: cache };

    // An apply that may not wait: five creates drain the bucket, seven fail for want of budget.
    const first = await cli(['apply', dir, '--no-lease', '--auto-approve', '--format', 'json', '--max-wait', '0'], { env });
    expect(first.code).toBe(1);
    expect(JSON.parse(first.stdout).summary).toMatchObject({ done: 5, failed: 7 });

    const planned = await cli(['plan', dir], { env });
    expect(planned.code, planned.stderr).toBe(0);
    const line = /POST AlertChannels\s+needs 7; 0 of 5 left; about (\d+) min: 7 requests at 1 per 12 min/.exec(oneLine(planned.stdout));
    expect(line, planned.stdout).not.toBeNull();
    const estimate = Number(line![1]) * 60;

    // A plan without the last run's knowledge cannot know the bucket is empty, and says both ends.
    const blind = await cli(['plan', dir], { env: envOf(emu) });
    expect(oneLine(blind.stdout)).toMatch(/POST AlertChannels\s+needs 7; not used yet: a full bucket holds 5; about 24 min: 2 requests at 1 per 12 min; up to 84 min if another run has just drained it/);

    const before = clock.now();
    const second = await cli(['apply', dir, '--no-lease', '--auto-approve', '--format', 'json'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).summary).toMatchObject({ done: 7, failed: 0 });
    const waited = (clock.now() - before) / 1000;
    expect(Math.abs(estimate - waited)).toBeLessThanOrEqual(0.1 * waited);
  });
});

describe('a long wait in a log that is not a terminal', () => {
  it('a wait of 10 minutes during the apply logs a line every 30 s at most, each saying what the number is', async () => {
    const clock = virtualClock();
    // 6 requests per hour: the seventh create waits 10 minutes.
    const emu = await emulator(clock, { accounts: ['prod'], rateLimit: 6 });
    const dir = await repo(['prod'], 7);
    const before = clock.now();
    const res = await cli(['apply', dir, '--no-lease', '--auto-approve'], { env: envOf(emu) });
    expect(res.code, res.stderr).toBe(0);
    expect(clock.now() - before).toBeGreaterThanOrEqual(9 * 60_000);
    // The wait rides on the phase's progress lines (issue 31: one line every 30 s at most, for both).
    expect(res.stderr).not.toMatch(/^rate limit:/m);
    const lines = res.stderr.split('\n').filter((l) => l.startsWith('Applying: ') && l.includes(' elapsed'));
    expect(lines.length).toBeGreaterThanOrEqual(15);
    expect(lines.length).toBeLessThanOrEqual(21);
    for (const l of lines) expect(l).toMatch(/ · rate limit: waiting: POST AlertChannels refills 1 request every 10 min, next request in (\d+m )?\d+s$/);
    const at = lines.map((l) => {
      const m = /(?:(\d+)m )?(\d+)s elapsed/.exec(l)!;
      return Number(m[1] ?? 0) * 60 + Number(m[2]);
    });
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(30);
    expect(res.stderr).not.toContain('\r');
  });
});
