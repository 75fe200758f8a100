// Issue 5 end to end: the real CLI applying the examples to the emulator, with faults and stale plans.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientOptions } from '../../src/api/options.js';
import { manualClock, startEmulator } from '../../src/emulator/index.js';
import { virtualTime } from '../api/helpers.js';
import { cli as runCli, EXAMPLES, exampleEnv, rawApi, serviceEnv } from './harness.js';

/**
 * The CLI builds its client with real timers: retries back off for up to seconds of real time.
 * While `virtual.sleep` is set, the client the CLI creates gets this test's clock and sleep instead,
 * through Io.clientOptions (everything else is the CLI's own choice).
 */
const virtual = {
  now: undefined as (() => number) | undefined,
  sleep: undefined as ((ms: number) => Promise<void>) | undefined,
  sleeps: [] as number[],
};
/** The CLI's client gets this test's virtual clock (through Io.clientOptions), and the test sees its waits. */
const clientOptions = (options: ClientOptions): ClientOptions => {
  const { now, sleep } = virtual;
  if (now === undefined || sleep === undefined) return options;
  return {
    ...options,
    now,
    sleep: (ms: number) => {
      virtual.sleeps.push(ms);
      return sleep(ms);
    },
  };
};
/** The real CLI, in-process, with the client options above. */
const cli = (args: string[], opts: Parameters<typeof runCli>[1] = {}) => runCli(args, { ...opts, clientOptions });

type Emu = Awaited<ReturnType<typeof startEmulator>>;
const running: Emu[] = [];
const dirs: string[] = [];

async function emulator(opts: Parameters<typeof startEmulator>[0] = {}): Promise<Emu> {
  const emu = await startEmulator({ accounts: ['prod', 'staging'], ...opts });
  running.push(emu);
  return emu;
}

afterEach(async () => {
  virtual.now = undefined;
  virtual.sleep = undefined;
  virtual.sleeps = [];
  await Promise.all(running.splice(0).map((e) => e.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function names(emu: Emu, account: string, path: string, nameOf: (r: any) => string): Promise<string[]> {
  const res = await rawApi(emu, 'GET', path, { account });
  expect(res.status).toBe(200);
  const rows = Array.isArray(res.body) ? res.body : res.body.data;
  return rows.map(nameOf).sort();
}

describe('apply', () => {
  it('applies the examples; a second plan reports no changes', async () => {
    const emu = await emulator();
    const env = { ...exampleEnv(), ...serviceEnv(emu) };
    const before = await cli(['plan', EXAMPLES, '--detailed-exitcode'], { env });
    expect(before.code, before.stderr).toBe(2);

    const applied = await cli(['apply', EXAMPLES, '--auto-approve', '--format', 'json'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const report = JSON.parse(applied.stdout);
    expect(report.summary.failed).toBe(0);
    expect(report.results.length).toBeGreaterThan(10);
    expect(report.results.every((r: any) => r.status === 'done')).toBe(true);

    const after = await cli(['plan', EXAMPLES, '--detailed-exitcode'], { env });
    expect(after.code, after.stdout + after.stderr).toBe(0);
    expect(after.stdout).toContain('No changes');
  });

  it('refuses to apply without a terminal unless --auto-approve', async () => {
    const emu = await emulator();
    const env = { ...exampleEnv(), ...serviceEnv(emu) };
    const res = await cli(['apply', EXAMPLES], { env });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('--auto-approve');
    expect(await names(emu, 'prod', '/api/v2/AlertChannels', (c) => c.name)).toEqual([]);
  });

  it('converges under 20 % faults within three runs, without duplicates or unplanned deletions', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'postureops-faults-'));
    dirs.push(dir);
    const statePath = join(dir, 'state.json');
    // One virtual clock for the emulator (token expiry, buckets) and the CLI's client (backoff,
    // rate-limit waits): time passes only when the client sleeps, and then at once.
    const clock = manualClock(Date.now());
    virtual.now = () => clock.now();
    virtual.sleep = virtualTime(clock);
    const faulty = await emulator({ faults: 0.2, faultSeed: 7, statePath, keyId: 'K', secret: 'S', clock });
    const env = { ...exampleEnv(), ...serviceEnv(faulty) };
    // Something the plan must never delete: prune is off in the examples.
    const keep = await rawApiRetrying(faulty, 'POST', '/api/v2/AlertChannels', {
      account: 'prod',
      body: { name: 'keep-me', type: 'Webhook', enabled: 1, data: { webhookUrl: 'https://keep.example.com' } },
    });
    expect(keep).toBe(true);

    let code = -1;
    for (let run = 1; run <= 3 && code !== 0; run++) {
      code = (await cli(['apply', EXAMPLES, '--auto-approve'], { env })).code;
    }
    expect(code).toBe(0);
    // The faults made the client back off or wait (in virtual time).
    expect(virtual.sleeps.length).toBeGreaterThan(0);
    virtual.now = undefined;
    virtual.sleep = undefined;
    await faulty.close();

    // Inspect the same data without faults.
    const clean = await emulator({ statePath, keyId: 'K', secret: 'S' });
    const cleanEnv = { ...exampleEnv(), ...serviceEnv(clean) };
    for (const account of ['prod', 'staging']) {
      for (const [path, nameOf] of [
        ['/api/v2/AlertChannels', (r: any) => r.name],
        ['/api/v2/AlertRules', (r: any) => r.filters.name],
        ['/api/v2/CloudAccounts', (r: any) => r.name],
        ['/api/v2/ContainerRegistries', (r: any) => r.name],
      ] as const) {
        const list = await names(clean, account, path, nameOf);
        expect(new Set(list).size, `${account} ${path}: ${list.join(', ')}`).toBe(list.length);
      }
    }
    expect(await names(clean, 'prod', '/api/v2/AlertChannels', (c) => c.name)).toContain('keep-me');
    const final = await cli(['plan', EXAMPLES, '--detailed-exitcode'], { env: cleanEnv });
    expect(final.code, final.stdout).toBe(0);
  });

  it('refuses a saved plan once the live state moved (exit 3), and applies it when it has not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'postureops-saved-'));
    dirs.push(dir);
    const emu = await emulator();
    const env = { ...exampleEnv(), ...serviceEnv(emu) };
    const first = await cli(['apply', EXAMPLES, '--auto-approve'], { env });
    expect(first.code, first.stderr).toBe(0);

    // Drift one channel, save a plan that repairs it, then move the live state again.
    const channels = (await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data;
    const target = channels[0];
    await rawApi(emu, 'PATCH', `/api/v2/AlertChannels/${target.intgGuid}`, { account: 'prod', body: { enabled: target.enabled ? 0 : 1 } });
    const planFile = join(dir, 'repair.plan.json');
    const saved = await cli(['plan', EXAMPLES, '--out', planFile, '--detailed-exitcode'], { env });
    expect(saved.code, saved.stderr).toBe(2);

    await rawApi(emu, 'PATCH', `/api/v2/AlertChannels/${target.intgGuid}`, { account: 'prod', body: { enabled: target.enabled } });
    const stale = await cli(['apply', EXAMPLES, '--plan', planFile, '--auto-approve'], { env });
    expect(stale.code).toBe(3);
    expect(stale.stderr).toContain(target.name);

    // Fresh plan, unchanged world: applies.
    await rawApi(emu, 'PATCH', `/api/v2/AlertChannels/${target.intgGuid}`, { account: 'prod', body: { enabled: target.enabled ? 0 : 1 } });
    const fresh = await cli(['plan', EXAMPLES, '--out', planFile], { env });
    expect(fresh.code).toBe(0);
    const ok = await cli(['apply', EXAMPLES, '--plan', planFile, '--auto-approve'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect((await cli(['plan', EXAMPLES, '--detailed-exitcode'], { env })).code).toBe(0);
  });
});

/** Seeding through a faulty emulator: repeat until the record is there (checking before repeating). */
async function rawApiRetrying(
  emu: Emu,
  method: string,
  path: string,
  opts: { account: string; body: { name: string } & Record<string, unknown> },
): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    try {
      const list = await rawApi(emu, 'GET', path, { account: opts.account });
      if (list.status === 200 && list.body.data.some((r: { name: string }) => r.name === opts.body.name)) return true;
      await rawApi(emu, method, path, opts);
    } catch {
      // dropped connection: look again
    }
  }
  return false;
}
